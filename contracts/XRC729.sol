// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

/// @title XRC-729 orchestration registry (xgr implementation)
/// @notice Keeps orchestration documents (OSTC, UTF-8 JSON) under string ids,
///         with a content hash, a per-id version counter and the time of the
///         last write, plus an executor allowlist that off-chain engines read
///         for delegated authorisation.
/// @dev Written for xgr against the public XRC-729 standard: the external
///      interface (functions, events with their indexed fields, revert
///      strings) is the standard's, so tooling built for other deployments
///      works with this one and the other way round. Executors never gain
///      write access on chain; every mutation is owner-only.
contract XRC729 {
    /// @notice Display name of the registry. Kept in storage (not constant)
    ///         so getNameXRC is a view function, as the standard's ABI says.
    string public nameXRC = "XGR_XRC729";

    /// @notice Schema marker for explorers and indexers.
    string public schemaVersion = "xrc729-ostc@1";

    /// @notice The only account allowed to change the registry.
    address public owner;

    /// @dev One stored orchestration. `position` is the 1-based place of the
    ///      id in `_ids`; zero means the id is not registered.
    struct Entry {
        string json;
        bytes32 hash;
        uint256 version;
        uint64 updatedAt;
        uint256 position;
    }

    mapping(string => Entry) private _entries;
    string[] private _ids;

    /// @dev Executor allowlist: the addresses and, per address, its 1-based
    ///      position in `_executors` (zero: not an executor).
    address[] private _executors;
    mapping(address => uint256) private _executorPosition;

    event OwnershipTransferred(address indexed previousOwner, address indexed newOwner);
    event ExecutorAdded(address indexed executor);
    event ExecutorRemoved(address indexed executor);

    /// @notice Short events kept for consumers of the first XRC-729 version.
    event OSTCSet(string indexed id);
    event OSTCDeleted(string indexed id);

    /// @notice Emitted once, by the constructor, so indexers find registries.
    event XRC729Deployed(
        address indexed xrc729Address,
        address indexed owner,
        bytes32 indexed nameHash,
        string nameXRC,
        string schemaVersion
    );

    /// @notice Emitted on every write of an id, with what was stored.
    event OSTCUpdated(
        address indexed xrc729Address,
        address indexed owner,
        bytes32 indexed ostcIdHash,
        bytes32 ostcHash,
        string id,
        uint256 version,
        uint64 updatedAt
    );

    /// @notice Emitted when an id is removed, with what it held last.
    event OSTCDeletedIndexed(
        address indexed xrc729Address,
        address indexed owner,
        bytes32 indexed ostcIdHash,
        bytes32 previousOstcHash,
        string id,
        uint256 previousVersion
    );

    modifier onlyOwner() {
        require(msg.sender == owner, "XRC729: not owner");
        _;
    }

    /// @param initialOstcIds ids to register at deployment
    /// @param initialOstcJsons documents for those ids, same order and length
    /// @param initialExecutors executors to allow at deployment
    constructor(
        string[] memory initialOstcIds,
        string[] memory initialOstcJsons,
        address[] memory initialExecutors
    ) {
        require(initialOstcIds.length == initialOstcJsons.length, "XRC729: OSTC array length mismatch");

        owner = msg.sender;
        emit OwnershipTransferred(address(0), msg.sender);
        emit XRC729Deployed(address(this), msg.sender, keccak256(bytes(nameXRC)), nameXRC, schemaVersion);

        for (uint256 i; i < initialOstcIds.length; ++i) {
            _store(initialOstcIds[i], initialOstcJsons[i]);
        }
        for (uint256 i; i < initialExecutors.length; ++i) {
            _allow(initialExecutors[i]);
        }
    }

    // ------------------------------------------------------------------
    // Orchestrations
    // ------------------------------------------------------------------

    /// @notice Creates the id or replaces its document; bumps its version.
    function setOSTC(string calldata id, string calldata json) external onlyOwner {
        _store(id, json);
    }

    /// @notice Removes the id and everything stored for it. A later setOSTC
    ///         of the same id starts again at version 1.
    function deleteOSTC(string calldata id) external onlyOwner {
        Entry storage e = _entries[id];
        uint256 position = e.position;
        require(position != 0, "XRC729: not found");

        bytes32 lastHash = e.hash;
        uint256 lastVersion = e.version;

        // Move the last id into the freed place, then shrink the list.
        uint256 tail = _ids.length;
        if (position != tail) {
            string memory moved = _ids[tail - 1];
            _ids[position - 1] = moved;
            _entries[moved].position = position;
        }
        _ids.pop();
        delete _entries[id];

        emit OSTCDeleted(id);
        emit OSTCDeletedIndexed(address(this), msg.sender, keccak256(bytes(id)), lastHash, id, lastVersion);
    }

    /// @notice The exact document stored for the id; reverts when absent.
    function getOSTC(string calldata id) external view returns (string memory) {
        return _existing(id).json;
    }

    /// @notice keccak256 of the stored bytes, write counter and last write
    ///         time (block timestamp) of the id; reverts when absent.
    function getOSTCMeta(string calldata id)
        external
        view
        returns (bytes32 hash, uint256 version, uint64 updatedAt)
    {
        Entry storage e = _existing(id);
        return (e.hash, e.version, e.updatedAt);
    }

    /// @notice Whether the id is registered.
    function hasOSTC(string calldata id) external view returns (bool) {
        return _entries[id].position != 0;
    }

    /// @notice Every registered id. Deletions move the last id into the
    ///         freed place, so the order is not the order of creation.
    function getAllOSTC() external view returns (string[] memory) {
        return _ids;
    }

    /// @notice The registry name (same value as nameXRC).
    function getNameXRC() external view returns (string memory) {
        return nameXRC;
    }

    // ------------------------------------------------------------------
    // Ownership and executors
    // ------------------------------------------------------------------

    /// @notice Hands the registry to another account. An executor that
    ///         becomes owner leaves the allowlist (owners are implicitly
    ///         authorised and may not be executors).
    function transferOwnership(address newOwner) external onlyOwner {
        require(newOwner != address(0), "XRC729: zero address");
        _disallow(newOwner);
        emit OwnershipTransferred(owner, newOwner);
        owner = newOwner;
    }

    /// @notice Allows an executor; allowing one twice changes nothing.
    function addExecutor(address exec) external onlyOwner {
        _allow(exec);
    }

    /// @notice Removes an executor; removing an absent one changes nothing.
    function removeExecutor(address exec) external onlyOwner {
        _disallow(exec);
    }

    /// @notice The executors in allowlist order (removals reorder it).
    function getExecutorList() external view returns (address[] memory) {
        return _executors;
    }

    /// @notice Whether `a` is on the executor allowlist.
    function isExecutor(address a) external view returns (bool) {
        return _executorPosition[a] != 0;
    }

    // ------------------------------------------------------------------
    // Internals
    // ------------------------------------------------------------------

    function _existing(string calldata id) private view returns (Entry storage e) {
        e = _entries[id];
        require(e.position != 0, "XRC729: not found");
    }

    function _store(string memory id, string memory json) private {
        Entry storage e = _entries[id];
        if (e.position == 0) {
            _ids.push(id);
            e.position = _ids.length;
        }
        e.json = json;
        e.hash = keccak256(bytes(json));
        e.version += 1;
        e.updatedAt = uint64(block.timestamp);

        emit OSTCSet(id);
        emit OSTCUpdated(address(this), msg.sender, keccak256(bytes(id)), e.hash, id, e.version, e.updatedAt);
    }

    function _allow(address exec) private {
        require(exec != address(0), "XRC729: zero executor");
        require(exec != owner, "XRC729: owner cannot be executor");
        if (_executorPosition[exec] != 0) {
            return;
        }
        _executors.push(exec);
        _executorPosition[exec] = _executors.length;
        emit ExecutorAdded(exec);
    }

    function _disallow(address exec) private {
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
}
