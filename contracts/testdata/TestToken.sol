// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

/// @title Test token: a minimal ERC-20-like contract for contract-read tests
/// @notice Not part of xgr. Tests deploy it on anvil and read it through the
///         XRC-137 contractReads path (balanceOf, multi-value returns).
contract TestToken {
    string public name;
    string public symbol = "TT";
    uint8 public decimals = 18;
    uint256 public totalSupply;
    mapping(address => uint256) public balanceOf;

    event Transfer(address indexed from, address indexed to, uint256 value);

    /// @param tokenName the token's name
    /// @param supply minted to the deployer
    constructor(string memory tokenName, uint256 supply) {
        name = tokenName;
        totalSupply = supply;
        balanceOf[msg.sender] = supply;
        emit Transfer(address(0), msg.sender, supply);
    }

    function transfer(address to, uint256 value) external returns (bool) {
        require(balanceOf[msg.sender] >= value, "balance too low");
        balanceOf[msg.sender] -= value;
        balanceOf[to] += value;
        emit Transfer(msg.sender, to, value);
        return true;
    }

    /// @notice Several return values of different ABI kinds, static and
    ///         dynamic, for tests of saveAs slots.
    function snapshot(address who)
        external
        view
        returns (uint256 balance, string memory tokenName, int64 delta, bool holder, bytes32 tag, address self)
    {
        balance = balanceOf[who];
        return (balance, name, -42, balance > 0, keccak256(bytes(name)), address(this));
    }
}
