// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

/// @title Many XRC-729 getOSTCMeta hashes in one call (xgr indexer helper)
/// @notice Calls getOSTCMeta(id) on the registry of every read it is given
///         and returns the hashes the registries answer, in order. Meant to
///         run without being deployed: an eth_call without `to` whose data
///         is this contract's creation code followed by the constructor
///         argument runs the constructor, which returns the answer in place
///         of the runtime code, so one call at one block answers for many
///         entries and nothing is stored. The constructor always returns,
///         so the creation code holds no runtime code and the contract
///         cannot be deployed; `read` is declared for its ABI, which
///         decodes the answer.
/// @dev `reads` is packed to keep the call small: per read the registry's
///      20-byte address, the id's length as 2 bytes (big-endian), then the
///      id's bytes. The answer is the ABI encoding of bytes32[], one hash per
///      read: the first word getOSTCMeta returned, when the call succeeded
///      and returned exactly three words (hash, version, updatedAt), else
///      zero (a revert, a missing id, no contract, another interface, or a
///      zero hash): the caller reads such an entry on its own. Each registry
///      is called with STATICCALL and at most READ_GAS gas, and its return
///      data is copied only when it is three words, so one registry that
///      reverts, loops or answers with a huge payload cannot spoil the
///      answers for the others.
contract MetaReader {
    /// @dev Gas given to each getOSTCMeta call; an XRC-729 registry needs
    ///      about 12,000. xgr makes at most 100 reads a call, so a call takes
    ///      at most about 6 million gas however the registries behave.
    uint256 private constant READ_GAS = 50_000;

    /// @param reads the packed reads (see the contract's notes)
    constructor(bytes memory reads) {
        bytes memory out = _read(reads);
        assembly {
            return(add(out, 32), mload(out))
        }
    }

    /// @notice The hashes getOSTCMeta answers for the packed reads.
    function read(bytes memory reads) external view returns (bytes32[] memory) {
        bytes memory out = _read(reads);
        assembly {
            return(add(out, 32), mload(out))
        }
    }

    /// @dev The answer for `reads`, ABI-encoded as bytes32[].
    function _read(bytes memory reads) private view returns (bytes memory out) {
        assembly {
            let p := add(reads, 32)
            let end := add(p, mload(reads))
            let n := 0
            for { let q := p } lt(q, end) {} {
                q := add(q, add(22, shr(240, mload(add(q, 20)))))
                n := add(n, 1)
            }
            // out: length, then offset 32, n and n words.
            out := mload(0x40)
            let size := add(64, mul(n, 32))
            mstore(out, size)
            mstore(add(out, 32), 32)
            mstore(add(out, 64), n)
            let o := add(out, 96)
            // The calldata of each call, getOSTCMeta(id), is built after out.
            let data := add(o, mul(n, 32))
            mstore(0x40, data)
            mstore(data, shl(224, 0x3d9b1fcf)) // getOSTCMeta(string)
            mstore(add(data, 4), 32)
            for {} lt(p, end) {} {
                let registry := shr(96, mload(p))
                let len := shr(240, mload(add(p, 20)))
                mstore(add(data, 36), len)
                mcopy(add(data, 68), add(p, 22), len)
                mstore(add(add(data, 68), len), 0) // zero padding
                let ok := staticcall(READ_GAS, registry, data, add(68, and(add(len, 31), not(31))), 0, 0)
                let hash := 0
                if and(ok, eq(returndatasize(), 96)) {
                    returndatacopy(o, 0, 32)
                    hash := mload(o)
                }
                mstore(o, hash)
                o := add(o, 32)
                p := add(p, add(22, len))
            }
        }
    }
}
