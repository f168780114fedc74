// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

/// @title Legacy rule contract: an XRC-137 rule container without executors
/// @notice Not part of xgr. It holds a rule and an owner, as deployments made
///         before the executor extension do, and has no executor allowlist:
///         no getExecutorList(). Engines must treat such a contract as
///         owner-only (XRC-729 §3.1, §4.2); authority tests deploy it on anvil.
contract LegacyRule {
    /// @notice The only account allowed to change the rule (and, for
    ///         engines, the only one allowed to run it).
    address public owner;

    /// @notice The rule text, stored as given.
    string public ruleJson;

    /// @param json the rule
    constructor(string memory json) {
        owner = msg.sender;
        ruleJson = json;
    }

    /// @notice The stored rule string, exactly as written.
    function getRule() external view returns (string memory) {
        return ruleJson;
    }

    /// @notice Hands the rule to another account.
    function transferOwnership(address newOwner) external {
        require(msg.sender == owner, "not owner");
        require(newOwner != address(0), "zero addr");
        owner = newOwner;
    }
}
