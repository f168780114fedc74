// Code generated via abigen V2 - DO NOT EDIT.
// This file is a generated binding and any manual changes will be lost.

package metareader

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

// MetaReaderAnswer is an auto generated low-level Go binding around an user-defined struct.
type MetaReaderAnswer struct {
	Ok    bool
	Words [3][32]byte
}

// MetaReaderMetaData contains all meta data concerning the MetaReader contract.
var MetaReaderMetaData = bind.MetaData{
	ABI: "[{\"inputs\":[{\"internalType\":\"address[]\",\"name\":\"registries\",\"type\":\"address[]\"},{\"internalType\":\"string[]\",\"name\":\"ids\",\"type\":\"string[]\"}],\"stateMutability\":\"nonpayable\",\"type\":\"constructor\"},{\"inputs\":[],\"name\":\"READ_GAS\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address[]\",\"name\":\"registries\",\"type\":\"address[]\"},{\"internalType\":\"string[]\",\"name\":\"ids\",\"type\":\"string[]\"}],\"name\":\"read\",\"outputs\":[{\"components\":[{\"internalType\":\"bool\",\"name\":\"ok\",\"type\":\"bool\"},{\"internalType\":\"bytes32[3]\",\"name\":\"words\",\"type\":\"bytes32[3]\"}],\"internalType\":\"structMetaReader.Answer[]\",\"name\":\"answers\",\"type\":\"tuple[]\"}],\"stateMutability\":\"view\",\"type\":\"function\"}]",
	ID:  "MetaReader",
	Bin: "0x608060405234801561000f575f5ffd5b5060405161056838038061056883398101604081905261002e916103d7565b5f6100398383610062565b60405160200161004991906104a7565b6040516020818303038152906040529050805160208201f35b606081518351146100b95760405162461bcd60e51b815260206004820152601b60248201527f4d6574615265616465723a206c656e677468206d69736d617463680000000000604482015260640160405180910390fd5b81516001600160401b038111156100d2576100d2610286565b60405190808252806020026020018201604052801561010b57816020015b6100f8610248565b8152602001906001900390816100f05790505b5090505f5b8251811015610241575f83828151811061012c5761012c61051e565b60200260200101516040516024016101449190610532565b60408051601f198184030181529190526020810180516001600160e01b0316633d9b1fcf60e01b17905285519091505f908690849081106101875761018761051e565b602002602001015190505f5f5f5f5f5f87516020890188620186a0fa3d60601416935083156101cc5760405160605f823e805193506020810151925060408101519150505b838888815181106101df576101df61051e565b60200260200101515f0190151590811515815250506040518060600160405280848152602001838152602001828152508888815181106102215761022161051e565b602002602001015160200181905250505050505050806001019050610110565b5092915050565b60405180604001604052805f15158152602001610263610268565b905290565b60405180606001604052806003906020820280368337509192915050565b634e487b7160e01b5f52604160045260245ffd5b604051601f8201601f191681016001600160401b03811182821017156102c2576102c2610286565b604052919050565b5f6001600160401b038211156102e2576102e2610286565b5060051b60200190565b5f82601f8301126102fb575f5ffd5b815161030e610309826102ca565b61029a565b8082825260208201915060208360051b86010192508583111561032f575f5ffd5b602085015b838110156103cd5780516001600160401b03811115610351575f5ffd5b8601603f81018813610361575f5ffd5b60208101516001600160401b0381111561037d5761037d610286565b610390601f8201601f191660200161029a565b8181526040838301018a10156103a4575f5ffd5b8160408401602083015e5f60208383010152808652505050602083019250602081019050610334565b5095945050505050565b5f5f604083850312156103e8575f5ffd5b82516001600160401b038111156103fd575f5ffd5b8301601f8101851361040d575f5ffd5b805161041b610309826102ca565b8082825260208201915060208360051b85010192508783111561043c575f5ffd5b6020840193505b828410156104725783516001600160a01b0381168114610461575f5ffd5b825260209384019390910190610443565b6020870151909550925050506001600160401b03811115610491575f5ffd5b61049d858286016102ec565b9150509250929050565b602080825282518282018190525f918401906040840190835b818110156105135783518051151584526020908101519084015f5b60038110156104fa5782518252602092830192909101906001016104db565b50505060209390930192608092909201916001016104c0565b509095945050505050565b634e487b7160e01b5f52603260045260245ffd5b602081525f82518060208401528060208501604085015e5f604082850101526040601f19601f8301168401019150509291505056fe",
}

// MetaReader is an auto generated Go binding around an Ethereum contract.
type MetaReader struct {
	abi abi.ABI
}

// GetABI returns the ABI associated with this contract binding.
func (c *MetaReader) GetABI() abi.ABI {
	return c.abi
}

// NewMetaReader creates a new instance of MetaReader.
func NewMetaReader() *MetaReader {
	parsed, err := MetaReaderMetaData.ParseABI()
	if err != nil {
		panic(errors.New("invalid ABI: " + err.Error()))
	}
	return &MetaReader{abi: *parsed}
}

// Instance creates a wrapper for a deployed contract instance at the given address.
// Use this to create the instance object passed to abigen v2 library functions Call, Transact, etc.
func (c *MetaReader) Instance(backend bind.ContractBackend, addr common.Address) *bind.BoundContract {
	return bind.NewBoundContract(addr, c.abi, backend, backend, backend)
}

// PackConstructor is the Go binding used to pack the parameters required for
// contract deployment.
//
// Solidity: constructor(address[] registries, string[] ids) returns()
func (metaReader *MetaReader) PackConstructor(registries []common.Address, ids []string) []byte {
	enc, err := metaReader.abi.Pack("", registries, ids)
	if err != nil {
		panic(err)
	}
	return enc
}

// PackREADGAS is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xf42bfa68.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function READ_GAS() view returns(uint256)
func (metaReader *MetaReader) PackREADGAS() []byte {
	enc, err := metaReader.abi.Pack("READ_GAS")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackREADGAS is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xf42bfa68.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function READ_GAS() view returns(uint256)
func (metaReader *MetaReader) TryPackREADGAS() ([]byte, error) {
	return metaReader.abi.Pack("READ_GAS")
}

// UnpackREADGAS is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xf42bfa68.
//
// Solidity: function READ_GAS() view returns(uint256)
func (metaReader *MetaReader) UnpackREADGAS(data []byte) (*big.Int, error) {
	out, err := metaReader.abi.Unpack("READ_GAS", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackRead is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x0932b4aa.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function read(address[] registries, string[] ids) view returns((bool,bytes32[3])[] answers)
func (metaReader *MetaReader) PackRead(registries []common.Address, ids []string) []byte {
	enc, err := metaReader.abi.Pack("read", registries, ids)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackRead is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x0932b4aa.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function read(address[] registries, string[] ids) view returns((bool,bytes32[3])[] answers)
func (metaReader *MetaReader) TryPackRead(registries []common.Address, ids []string) ([]byte, error) {
	return metaReader.abi.Pack("read", registries, ids)
}

// UnpackRead is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x0932b4aa.
//
// Solidity: function read(address[] registries, string[] ids) view returns((bool,bytes32[3])[] answers)
func (metaReader *MetaReader) UnpackRead(data []byte) ([]MetaReaderAnswer, error) {
	out, err := metaReader.abi.Unpack("read", data)
	if err != nil {
		return *new([]MetaReaderAnswer), err
	}
	out0 := *abi.ConvertType(out[0], new([]MetaReaderAnswer)).(*[]MetaReaderAnswer)
	return out0, nil
}
