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

// MetaReaderMetaData contains all meta data concerning the MetaReader contract.
var MetaReaderMetaData = bind.MetaData{
	ABI: "[{\"inputs\":[{\"internalType\":\"bytes\",\"name\":\"reads\",\"type\":\"bytes\"}],\"stateMutability\":\"nonpayable\",\"type\":\"constructor\"},{\"inputs\":[{\"internalType\":\"bytes\",\"name\":\"reads\",\"type\":\"bytes\"}],\"name\":\"read\",\"outputs\":[{\"internalType\":\"bytes32[]\",\"name\":\"\",\"type\":\"bytes32[]\"}],\"stateMutability\":\"view\",\"type\":\"function\"}]",
	ID:  "MetaReader",
	Bin: "0x608060405234801561000f575f5ffd5b506040516101e63803806101e683398101604081905261002e91610135565b5f61003882610042565b9050805160208201f35b606060208201825181015f825b8281101561006f5760148101516001929092019160f01c0160160161004f565b506040519350602081026040018085525060208085015280604085015260608401602082028101915081604052633d9b1fcf60e01b8252602060048301525b8284101561011857835160601c601485015160f01c8060248501528060168701604486015e5f816044860101525f5f601f19601f840116604401868561c350fa91505f60603d148316156101055760205f853e5082515b83529490940160160193506020016100ae565b50505050919050565b634e487b7160e01b5f52604160045260245ffd5b5f60208284031215610145575f5ffd5b81516001600160401b0381111561015a575f5ffd5b8201601f8101841361016a575f5ffd5b80516001600160401b0381111561018357610183610121565b604051601f8201601f19908116603f011681016001600160401b03811182821017156101b1576101b1610121565b6040528181528282016020018610156101c8575f5ffd5b8160208401602083015e5f9181016020019190915294935050505056fe",
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
// Solidity: constructor(bytes reads) returns()
func (metaReader *MetaReader) PackConstructor(reads []byte) []byte {
	enc, err := metaReader.abi.Pack("", reads)
	if err != nil {
		panic(err)
	}
	return enc
}

// PackRead is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x8bf4515c.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function read(bytes reads) view returns(bytes32[])
func (metaReader *MetaReader) PackRead(reads []byte) []byte {
	enc, err := metaReader.abi.Pack("read", reads)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackRead is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x8bf4515c.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function read(bytes reads) view returns(bytes32[])
func (metaReader *MetaReader) TryPackRead(reads []byte) ([]byte, error) {
	return metaReader.abi.Pack("read", reads)
}

// UnpackRead is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x8bf4515c.
//
// Solidity: function read(bytes reads) view returns(bytes32[])
func (metaReader *MetaReader) UnpackRead(data []byte) ([][32]byte, error) {
	out, err := metaReader.abi.Unpack("read", data)
	if err != nil {
		return *new([][32]byte), err
	}
	out0 := *abi.ConvertType(out[0], new([][32]byte)).(*[][32]byte)
	return out0, nil
}
