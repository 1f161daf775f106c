// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

/// @title IdentityRegistry
/// @notice Human-readable handles for addresses: one handle per owner, one owner per handle.
/// A handle is 3 to 32 characters of a-z, 0-9, '-' and '_', not starting with "0x" (so an
/// owner given as text is an address or a handle, never both). An owner releases its handle to
/// free it for anyone, and may then register another.
contract IdentityRegistry {
    mapping(bytes32 => address) private owners;
    mapping(address => string) private handles;

    event Registered(address indexed owner, string handle);
    event Released(address indexed owner, string handle);

    function register(string calldata handle) external {
        require(isValidHandle(handle), "IdentityRegistry: invalid handle");
        require(bytes(handles[msg.sender]).length == 0, "IdentityRegistry: owner has a handle");
        bytes32 key = keccak256(bytes(handle));
        require(owners[key] == address(0), "IdentityRegistry: handle taken");
        owners[key] = msg.sender;
        handles[msg.sender] = handle;
        emit Registered(msg.sender, handle);
    }

    function release() external {
        string memory handle = handles[msg.sender];
        require(bytes(handle).length != 0, "IdentityRegistry: owner has no handle");
        delete owners[keccak256(bytes(handle))];
        delete handles[msg.sender];
        emit Released(msg.sender, handle);
    }

    /// @return The owner of `handle`, or the zero address when nobody holds it.
    function ownerOf(string calldata handle) external view returns (address) {
        return owners[keccak256(bytes(handle))];
    }

    /// @return The handle of `owner`, or the empty string when it has none.
    function handleOf(address owner) external view returns (string memory) {
        return handles[owner];
    }

    function isValidHandle(string calldata handle) public pure returns (bool) {
        bytes calldata b = bytes(handle);
        if (b.length < 3 || b.length > 32) return false;
        if (b[0] == "0" && b[1] == "x") return false;
        for (uint256 i = 0; i < b.length; i++) {
            bytes1 c = b[i];
            bool ok = (c >= "a" && c <= "z") || (c >= "0" && c <= "9") || c == "-" || c == "_";
            if (!ok) return false;
        }
        return true;
    }
}
