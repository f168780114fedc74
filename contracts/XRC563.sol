// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

/// @title XRC-563 read-key registry (the key half of the XGR grants standard)
/// @notice Every account may publish one read public key: the P-256 key
///         others wrap data keys for (XGRK2), so that the account can read
///         encrypted rules and logs granted to it. Only public keys are
///         stored; the private key never leaves its owner. Grants themselves
///         live off chain (the grant store), as in version 2 of the public
///         XGR encryption reference.
/// @dev The function and event signatures are those of the public XRC-563
///      interface: registerReadKey(bytes), getReadKey(address) -> bytes,
///      clearReadKey(), ReadKeyRegistered(address indexed, bytes) and
///      ReadKeyCleared(address indexed). A key is SEC1: 65 bytes
///      uncompressed (0x04 ‖ X ‖ Y, what xgr wraps for) or 33 bytes
///      compressed (0x02/0x03 ‖ X), as the standard allows; other lengths
///      and prefixes are refused. Whether the point lies on P-256 is checked
///      by the clients that wrap for it, not here (it would cost too much
///      gas). There is no administrator: an account manages only its own
///      key.
contract XRC563 {
    mapping(address => bytes) private _readKey;

    /// @notice `owner` published `pubkey` (a new key or a replacement).
    event ReadKeyRegistered(address indexed owner, bytes pubkey);
    /// @notice `owner` removed its key.
    event ReadKeyCleared(address indexed owner);

    /// @notice Publishes (or replaces) the caller's read public key.
    function registerReadKey(bytes calldata pubkey) external {
        require(pubkey.length == 33 || pubkey.length == 65, "readPub: invalid length");
        bytes1 form = pubkey[0];
        require(
            (pubkey.length == 65 && form == 0x04) || (pubkey.length == 33 && (form == 0x02 || form == 0x03)),
            "readPub: invalid prefix"
        );
        _readKey[msg.sender] = pubkey;
        emit ReadKeyRegistered(msg.sender, pubkey);
    }

    /// @notice The read public key of `owner`; empty when it has none.
    function getReadKey(address owner) external view returns (bytes memory pubkey) {
        return _readKey[owner];
    }

    /// @notice Removes the caller's read public key (nothing to remove is
    ///         not an error; the event is emitted either way).
    function clearReadKey() external {
        delete _readKey[msg.sender];
        emit ReadKeyCleared(msg.sender);
    }
}
