// Code generated via abigen V2 - DO NOT EDIT.
// This file is a generated binding and any manual changes will be lost.

package xrc563

import (
	"bytes"
	"errors"
	"math/big"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// Reference imports to suppress errors if they are not otherwise used.
var (
	_ = bytes.Equal
	_ = errors.New
	_ = big.NewInt
	_ = common.Big1
	_ = types.BloomLookup
	_ = abi.ConvertType
)

// XRC563MetaData contains all meta data concerning the XRC563 contract.
var XRC563MetaData = bind.MetaData{
	ABI: "[{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"}],\"name\":\"ReadKeyCleared\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"bytes\",\"name\":\"pubkey\",\"type\":\"bytes\"}],\"name\":\"ReadKeyRegistered\",\"type\":\"event\"},{\"inputs\":[],\"name\":\"clearReadKey\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"}],\"name\":\"getReadKey\",\"outputs\":[{\"internalType\":\"bytes\",\"name\":\"pubkey\",\"type\":\"bytes\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes\",\"name\":\"pubkey\",\"type\":\"bytes\"}],\"name\":\"registerReadKey\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"}]",
	ID:  "XRC563",
	Bin: "0x6080604052348015600e575f5ffd5b506105c18061001c5f395ff3fe608060405234801561000f575f5ffd5b506004361061003f575f3560e01c8063805000e71461004357806393efe2751461006c578063af1047de14610076575b5f5ffd5b610056610051366004610350565b610089565b604051610063919061037d565b60405180910390f35b610074610132565b005b6100746100843660046103b2565b610175565b6001600160a01b0381165f9081526020819052604090208054606091906100af90610420565b80601f01602080910402602001604051908101604052809291908181526020018280546100db90610420565b80156101265780601f106100fd57610100808354040283529160200191610126565b820191905f5260205f20905b81548152906001019060200180831161010957829003601f168201915b50505050509050919050565b335f908152602081905260408120610149916102fe565b60405133907ff5a27329b4999c6a36e20b11ddbbe931339d66fa98640fab77a44b09425ecc8d905f90a2565b60218114806101845750604181145b6101d55760405162461bcd60e51b815260206004820152601760248201527f726561645075623a20696e76616c6964206c656e67746800000000000000000060448201526064015b60405180910390fd5b5f82825f8181106101e8576101e8610458565b909101356001600160f81b0319169150506041821480156102165750600160fa1b6001600160f81b03198216145b8061025057506021821480156102505750600160f91b6001600160f81b0319821614806102505750600360f81b6001600160f81b03198216145b61029c5760405162461bcd60e51b815260206004820152601760248201527f726561645075623a20696e76616c69642070726566697800000000000000000060448201526064016101cc565b335f9081526020819052604090206102b58385836104cc565b50336001600160a01b03167f9e7d7a9b90b14365615cbf5c20c434444ec1c1c6d73239760494d69e666cc44084846040516102f1929190610586565b60405180910390a2505050565b50805461030a90610420565b5f825580601f10610319575050565b601f0160209004905f5260205f20908101906103359190610338565b50565b5b8082111561034c575f8155600101610339565b5090565b5f60208284031215610360575f5ffd5b81356001600160a01b0381168114610376575f5ffd5b9392505050565b602081525f82518060208401528060208501604085015e5f604082850101526040601f19601f83011684010191505092915050565b5f5f602083850312156103c3575f5ffd5b823567ffffffffffffffff8111156103d9575f5ffd5b8301601f810185136103e9575f5ffd5b803567ffffffffffffffff8111156103ff575f5ffd5b856020828401011115610410575f5ffd5b6020919091019590945092505050565b600181811c9082168061043457607f821691505b60208210810361045257634e487b7160e01b5f52602260045260245ffd5b50919050565b634e487b7160e01b5f52603260045260245ffd5b634e487b7160e01b5f52604160045260245ffd5b601f8211156104c757805f5260205f20601f840160051c810160208510156104a55750805b601f840160051c820191505b818110156104c4575f81556001016104b1565b50505b505050565b67ffffffffffffffff8311156104e4576104e461046c565b6104f8836104f28354610420565b83610480565b5f601f841160018114610529575f85156105125750838201355b5f19600387901b1c1916600186901b1783556104c4565b5f83815260208120601f198716915b828110156105585786850135825560209485019460019092019101610538565b5086821015610574575f1960f88860031b161c19848701351681555b505060018560011b0183555050505050565b60208152816020820152818360408301375f818301604090810191909152601f909201601f1916010191905056fea164736f6c634300081e000a",
}

// XRC563 is an auto generated Go binding around an Ethereum contract.
type XRC563 struct {
	abi abi.ABI
}

// GetABI returns the ABI associated with this contract binding.
func (c *XRC563) GetABI() abi.ABI {
	return c.abi
}

// NewXRC563 creates a new instance of XRC563.
func NewXRC563() *XRC563 {
	parsed, err := XRC563MetaData.ParseABI()
	if err != nil {
		panic(errors.New("invalid ABI: " + err.Error()))
	}
	return &XRC563{abi: *parsed}
}

// Instance creates a wrapper for a deployed contract instance at the given address.
// Use this to create the instance object passed to abigen v2 library functions Call, Transact, etc.
func (c *XRC563) Instance(backend bind.ContractBackend, addr common.Address) *bind.BoundContract {
	return bind.NewBoundContract(addr, c.abi, backend, backend, backend)
}

// PackClearReadKey is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x93efe275.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function clearReadKey() returns()
func (xRC563 *XRC563) PackClearReadKey() []byte {
	enc, err := xRC563.abi.Pack("clearReadKey")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackClearReadKey is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x93efe275.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function clearReadKey() returns()
func (xRC563 *XRC563) TryPackClearReadKey() ([]byte, error) {
	return xRC563.abi.Pack("clearReadKey")
}

// PackGetReadKey is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x805000e7.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function getReadKey(address owner) view returns(bytes pubkey)
func (xRC563 *XRC563) PackGetReadKey(owner common.Address) []byte {
	enc, err := xRC563.abi.Pack("getReadKey", owner)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackGetReadKey is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x805000e7.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function getReadKey(address owner) view returns(bytes pubkey)
func (xRC563 *XRC563) TryPackGetReadKey(owner common.Address) ([]byte, error) {
	return xRC563.abi.Pack("getReadKey", owner)
}

// UnpackGetReadKey is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x805000e7.
//
// Solidity: function getReadKey(address owner) view returns(bytes pubkey)
func (xRC563 *XRC563) UnpackGetReadKey(data []byte) ([]byte, error) {
	out, err := xRC563.abi.Unpack("getReadKey", data)
	if err != nil {
		return *new([]byte), err
	}
	out0 := *abi.ConvertType(out[0], new([]byte)).(*[]byte)
	return out0, nil
}

// PackRegisterReadKey is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xaf1047de.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function registerReadKey(bytes pubkey) returns()
func (xRC563 *XRC563) PackRegisterReadKey(pubkey []byte) []byte {
	enc, err := xRC563.abi.Pack("registerReadKey", pubkey)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackRegisterReadKey is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xaf1047de.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function registerReadKey(bytes pubkey) returns()
func (xRC563 *XRC563) TryPackRegisterReadKey(pubkey []byte) ([]byte, error) {
	return xRC563.abi.Pack("registerReadKey", pubkey)
}

// XRC563ReadKeyCleared represents a ReadKeyCleared event raised by the XRC563 contract.
type XRC563ReadKeyCleared struct {
	Owner common.Address
	Raw   *types.Log // Blockchain specific contextual infos
}

const XRC563ReadKeyClearedEventName = "ReadKeyCleared"

// ContractEventName returns the user-defined event name.
func (XRC563ReadKeyCleared) ContractEventName() string {
	return XRC563ReadKeyClearedEventName
}

// UnpackReadKeyClearedEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event ReadKeyCleared(address indexed owner)
func (xRC563 *XRC563) UnpackReadKeyClearedEvent(log *types.Log) (*XRC563ReadKeyCleared, error) {
	event := "ReadKeyCleared"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != xRC563.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(XRC563ReadKeyCleared)
	if len(log.Data) > 0 {
		if err := xRC563.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range xRC563.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// XRC563ReadKeyRegistered represents a ReadKeyRegistered event raised by the XRC563 contract.
type XRC563ReadKeyRegistered struct {
	Owner  common.Address
	Pubkey []byte
	Raw    *types.Log // Blockchain specific contextual infos
}

const XRC563ReadKeyRegisteredEventName = "ReadKeyRegistered"

// ContractEventName returns the user-defined event name.
func (XRC563ReadKeyRegistered) ContractEventName() string {
	return XRC563ReadKeyRegisteredEventName
}

// UnpackReadKeyRegisteredEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event ReadKeyRegistered(address indexed owner, bytes pubkey)
func (xRC563 *XRC563) UnpackReadKeyRegisteredEvent(log *types.Log) (*XRC563ReadKeyRegistered, error) {
	event := "ReadKeyRegistered"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != xRC563.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(XRC563ReadKeyRegistered)
	if len(log.Data) > 0 {
		if err := xRC563.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range xRC563.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}
