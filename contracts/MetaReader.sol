// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

/// @title Many XRC-729 getOSTCMeta reads in one call (xgr indexer helper)
/// @notice Reads getOSTCMeta(ids[i]) on registries[i] for every i and returns
///         the answers in order. Meant to run without being deployed: an
///         eth_call without `to` whose data is this contract's creation code
///         followed by the constructor arguments runs the constructor, which
///         returns the ABI encoding of read(registries, ids) in place of the
///         runtime code, so one call at one block answers for many entries
///         and nothing is stored. The constructor always returns, so the
///         creation code holds no runtime code and the contract cannot be
///         deployed; `read` is public for its ABI, which decodes the answer.
/// @dev Each registry is called with STATICCALL and at most READ_GAS gas,
///      and at most three words of its answer are copied, so one registry
///      that reverts, loops or answers with a huge payload cannot spoil the
///      answers for the others. An answer that is not exactly three words
///      (a revert, a missing id, no contract, another interface) is
///      reported as not ok; the caller reads that entry on its own.
contract MetaReader {
    /// @notice Gas given to each getOSTCMeta call; an XRC-729 registry
    ///         needs about 12,000.
    uint256 public constant READ_GAS = 100_000;

    /// @notice One answer: ok when the call succeeded and returned exactly
    ///         three words, which are then its return data verbatim
    ///         (hash, version, updatedAt as getOSTCMeta encodes them).
    struct Answer {
        bool ok;
        bytes32[3] words;
    }

    /// @param registries the registry of each read
    /// @param ids the id of each read, same order and length
    constructor(address[] memory registries, string[] memory ids) {
        bytes memory out = abi.encode(read(registries, ids));
        assembly {
            return(add(out, 32), mload(out))
        }
    }

    /// @notice getOSTCMeta(ids[i]) on registries[i], for every i.
    function read(address[] memory registries, string[] memory ids) public view returns (Answer[] memory answers) {
        require(registries.length == ids.length, "MetaReader: length mismatch");
        answers = new Answer[](ids.length);
        for (uint256 i; i < ids.length; ++i) {
            bytes memory data = abi.encodeWithSignature("getOSTCMeta(string)", ids[i]);
            address registry = registries[i];
            bool ok;
            bytes32 w0;
            bytes32 w1;
            bytes32 w2;
            assembly {
                // Copy no return data during the call (out size 0), then at
                // most three words of it, and only when there are exactly three.
                ok := staticcall(READ_GAS, registry, add(data, 32), mload(data), 0, 0)
                ok := and(ok, eq(returndatasize(), 96))
                if ok {
                    let p := mload(0x40)
                    returndatacopy(p, 0, 96)
                    w0 := mload(p)
                    w1 := mload(add(p, 32))
                    w2 := mload(add(p, 64))
                }
            }
            answers[i].ok = ok;
            answers[i].words = [w0, w1, w2];
        }
    }
}
