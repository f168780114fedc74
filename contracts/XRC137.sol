// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

/// @title XRC-137 rule container (xgr implementation)
/// @notice Holds one rule document: plain JSON, or an encrypted "XGR1."
///         envelope together with the header needed to decrypt it. Every
///         write bumps ruleVersion and recomputes ruleHash = keccak256 of the
///         stored bytes.
/// @dev Written for xgr against the public XRC-137 standard: the external
///      interface (functions, events with their indexed fields, revert
///      strings) is the standard's. Invariant: the header is set (rid != 0)
///      only while ruleJson is an envelope written with that header.
contract XRC137 {
    /// @notice Encryption header of the stored rule; rid == 0 means plain.
    struct EncInfo {
        bytes32 rid; // sha256(nonce || ciphertext) of the envelope
        string suite; // cipher suite, e.g. "AES-256-GCM-1"
        bytes encDEK; // encrypted data-encryption key, opaque to the contract
    }

    /// @notice The only account allowed to change the rule.
    address public owner;

    /// @notice The rule: plain JSON or an "XGR1." envelope.
    string public ruleJson;

    /// @notice Display name. Kept in storage (not constant) so getNameXRC is
    ///         a view function, as the standard's ABI says.
    string public nameXRC = "XGR_XRC137";

    /// @notice Schema marker for explorers and indexers.
    string public schemaVersion = "xrc137-rule@1";

    /// @notice keccak256 of the bytes of ruleJson.
    bytes32 public ruleHash;

    /// @notice Write counter: 1 after deployment, +1 on every rule write.
    uint256 public ruleVersion;

    /// @notice The encryption header; all zero for a plain rule.
    EncInfo public encrypted;

    /// @dev Executor allowlist and 1-based positions (zero: absent). It
    ///      grants no on-chain rights; engines read it for delegation.
    address[] private _executors;
    mapping(address => uint256) private _executorPosition;

    event RuleUpdated(string newRule);
    event EncryptedSet(bytes32 rid, string suite);
    event EncryptedCleared();
    event ExecutorAdded(address indexed executor);
    event ExecutorRemoved(address indexed executor);

    /// @notice Emitted once, by the constructor, so indexers find rules.
    event XRC137Deployed(
        address indexed ruleAddress,
        address indexed owner,
        bytes32 indexed ruleHash,
        uint256 version,
        string nameXRC,
        string schemaVersion,
        bool encryptedState
    );

    /// @notice Emitted after every rule write with the new hash and version.
    event XRC137Updated(
        address indexed ruleAddress,
        address indexed owner,
        bytes32 indexed ruleHash,
        uint256 version,
        bool encryptedState
    );

    modifier onlyOwner() {
        require(msg.sender == owner, "not owner");
        _;
    }

    /// @param json the initial rule, stored as plain (unencrypted) text
    constructor(string memory json) {
        owner = msg.sender;
        ruleJson = json;
        _reindex();
        emit XRC137Deployed(address(this), msg.sender, ruleHash, ruleVersion, nameXRC, schemaVersion, false);
    }

    // ------------------------------------------------------------------
    // Reads
    // ------------------------------------------------------------------

    /// @notice The stored rule string, exactly as written.
    function getRule() external view returns (string memory) {
        return ruleJson;
    }

    /// @notice The display name (same value as nameXRC).
    function getNameXRC() external view returns (string memory) {
        return nameXRC;
    }

    /// @notice Whether an encryption header is set.
    function isEncrypted() external view returns (bool) {
        return encrypted.rid != bytes32(0);
    }

    /// @notice Same as ruleHash.
    function getRuleHash() external view returns (bytes32) {
        return ruleHash;
    }

    /// @notice Same as ruleVersion.
    function getRuleVersion() external view returns (uint256) {
        return ruleVersion;
    }

    // ------------------------------------------------------------------
    // Rule writes (owner only)
    // ------------------------------------------------------------------

    /// @notice Replaces the rule text. Plain text clears the header; an
    ///         "XGR1." envelope keeps it and is refused while none is set
    ///         (use setRuleAndEncrypted to write envelope and header together).
    function updateRule(string calldata jsonOrBlob) external onlyOwner {
        bool envelope = _isEnvelope(jsonOrBlob);
        if (envelope) {
            require(
                encrypted.rid != bytes32(0),
                "encrypted meta required: call setRuleAndEncrypted or setEncrypted first"
            );
        }

        ruleJson = jsonOrBlob;
        emit RuleUpdated(jsonOrBlob);
        if (!envelope) {
            _clearHeader();
        }
        _reindex();
        emit XRC137Updated(address(this), msg.sender, ruleHash, ruleVersion, encrypted.rid != bytes32(0));
    }

    /// @notice Writes the rule and its encryption header in one step. A zero
    ///         rid is a plain write: the text is stored as given, the header
    ///         cleared, suite and encDEK ignored. A non-zero rid requires an
    ///         "XGR1." envelope.
    function setRuleAndEncrypted(
        string calldata jsonOrBlob,
        bytes32 rid,
        string calldata suite,
        bytes calldata encDEK
    ) external onlyOwner {
        if (rid == bytes32(0)) {
            ruleJson = jsonOrBlob;
            emit RuleUpdated(jsonOrBlob);
            _clearHeader();
            _reindex();
            emit XRC137Updated(address(this), msg.sender, ruleHash, ruleVersion, false);
            return;
        }

        require(_isEnvelope(jsonOrBlob), "expected XGR1 blob");
        ruleJson = jsonOrBlob;
        encrypted = EncInfo({rid: rid, suite: suite, encDEK: encDEK});
        emit RuleUpdated(jsonOrBlob);
        emit EncryptedSet(rid, suite);
        _reindex();
        emit XRC137Updated(address(this), msg.sender, ruleHash, ruleVersion, true);
    }

    // ------------------------------------------------------------------
    // Ownership and executors (owner only)
    // ------------------------------------------------------------------

    /// @notice Hands the rule to another account. Emits no event and leaves
    ///         the executor allowlist as it is (as the standard does).
    function transferOwnership(address newOwner) external onlyOwner {
        require(newOwner != address(0), "zero addr");
        owner = newOwner;
    }

    /// @notice Allows an executor; allowing one twice changes nothing.
    function addExecutor(address exec) external onlyOwner {
        require(exec != owner, "owner cannot be executor");
        if (_executorPosition[exec] != 0) {
            return;
        }
        _executors.push(exec);
        _executorPosition[exec] = _executors.length;
        emit ExecutorAdded(exec);
    }

    /// @notice Removes an executor; removing an absent one changes nothing.
    function removeExecutor(address exec) external onlyOwner {
        uint256 position = _executorPosition[exec];
        if (position == 0) {
            return;
        }
        uint256 tail = _executors.length;
        if (position != tail) {
            address moved = _executors[tail - 1];
            _executors[position - 1] = moved;
            _executorPosition[moved] = position;
        }
        _executors.pop();
        delete _executorPosition[exec];
        emit ExecutorRemoved(exec);
    }

    /// @notice The executors in allowlist order (removals reorder it).
    function getExecutorList() external view returns (address[] memory) {
        return _executors;
    }

    /// @notice Whether `exec` is on the executor allowlist.
    function isExecutor(address exec) external view returns (bool) {
        return _executorPosition[exec] != 0;
    }

    // ------------------------------------------------------------------
    // Internals
    // ------------------------------------------------------------------

    function _reindex() private {
        ruleHash = keccak256(bytes(ruleJson));
        ruleVersion += 1;
    }

    function _clearHeader() private {
        if (encrypted.rid != bytes32(0)) {
            delete encrypted;
            emit EncryptedCleared();
        }
    }

    /// @dev True when s starts with the ASCII prefix "XGR1.".
    function _isEnvelope(string calldata s) private pure returns (bool) {
        bytes calldata b = bytes(s);
        return b.length >= 5 && bytes5(b[:5]) == bytes5("XGR1.");
    }
}
