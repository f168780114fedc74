// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

/// @title Execution target: a contract executions call in tests
/// @notice Not part of xgr. It counts settle() calls per reference, so a test
///         can read from the chain how often one execution landed, and it
///         reverts with a reason for an amount of zero.
contract ExecTarget {
    /// @notice How often settle() ran with a reference (by its keccak256).
    mapping(bytes32 => uint256) public calls;

    /// @notice The sum of every settled amount.
    uint256 public total;

    /// @notice One settle() call.
    event Settled(address indexed caller, uint256 amount, string ref, uint256 value);

    /// @notice Adds amount to total and counts the call under ref.
    /// @param amount must be greater than zero
    /// @param ref the caller's reference (e.g. an idempotency key)
    function settle(uint256 amount, string calldata ref) external payable {
        require(amount > 0, "amount is zero");
        total += amount;
        calls[keccak256(bytes(ref))] += 1;
        emit Settled(msg.sender, amount, ref, msg.value);
    }

    /// @notice How often settle() ran with ref.
    function callsOf(string calldata ref) external view returns (uint256) {
        return calls[keccak256(bytes(ref))];
    }
}
