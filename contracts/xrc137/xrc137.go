// Code generated via abigen V2 - DO NOT EDIT.
// This file is a generated binding and any manual changes will be lost.

package xrc137

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

// XRC137MetaData contains all meta data concerning the XRC137 contract.
var XRC137MetaData = bind.MetaData{
	ABI: "[{\"inputs\":[{\"internalType\":\"string\",\"name\":\"json\",\"type\":\"string\"}],\"stateMutability\":\"nonpayable\",\"type\":\"constructor\"},{\"anonymous\":false,\"inputs\":[],\"name\":\"EncryptedCleared\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":false,\"internalType\":\"bytes32\",\"name\":\"rid\",\"type\":\"bytes32\"},{\"indexed\":false,\"internalType\":\"string\",\"name\":\"suite\",\"type\":\"string\"}],\"name\":\"EncryptedSet\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"executor\",\"type\":\"address\"}],\"name\":\"ExecutorAdded\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"executor\",\"type\":\"address\"}],\"name\":\"ExecutorRemoved\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":false,\"internalType\":\"string\",\"name\":\"newRule\",\"type\":\"string\"}],\"name\":\"RuleUpdated\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"ruleAddress\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"ruleHash\",\"type\":\"bytes32\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"version\",\"type\":\"uint256\"},{\"indexed\":false,\"internalType\":\"string\",\"name\":\"nameXRC\",\"type\":\"string\"},{\"indexed\":false,\"internalType\":\"string\",\"name\":\"schemaVersion\",\"type\":\"string\"},{\"indexed\":false,\"internalType\":\"bool\",\"name\":\"encryptedState\",\"type\":\"bool\"}],\"name\":\"XRC137Deployed\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"ruleAddress\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"ruleHash\",\"type\":\"bytes32\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"version\",\"type\":\"uint256\"},{\"indexed\":false,\"internalType\":\"bool\",\"name\":\"encryptedState\",\"type\":\"bool\"}],\"name\":\"XRC137Updated\",\"type\":\"event\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"exec\",\"type\":\"address\"}],\"name\":\"addExecutor\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"encrypted\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"rid\",\"type\":\"bytes32\"},{\"internalType\":\"string\",\"name\":\"suite\",\"type\":\"string\"},{\"internalType\":\"bytes\",\"name\":\"encDEK\",\"type\":\"bytes\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"getExecutorList\",\"outputs\":[{\"internalType\":\"address[]\",\"name\":\"\",\"type\":\"address[]\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"getNameXRC\",\"outputs\":[{\"internalType\":\"string\",\"name\":\"\",\"type\":\"string\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"getRule\",\"outputs\":[{\"internalType\":\"string\",\"name\":\"\",\"type\":\"string\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"getRuleHash\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"getRuleVersion\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"isEncrypted\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"exec\",\"type\":\"address\"}],\"name\":\"isExecutor\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"nameXRC\",\"outputs\":[{\"internalType\":\"string\",\"name\":\"\",\"type\":\"string\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"owner\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"exec\",\"type\":\"address\"}],\"name\":\"removeExecutor\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"ruleHash\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"ruleJson\",\"outputs\":[{\"internalType\":\"string\",\"name\":\"\",\"type\":\"string\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"ruleVersion\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"schemaVersion\",\"outputs\":[{\"internalType\":\"string\",\"name\":\"\",\"type\":\"string\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"string\",\"name\":\"jsonOrBlob\",\"type\":\"string\"},{\"internalType\":\"bytes32\",\"name\":\"rid\",\"type\":\"bytes32\"},{\"internalType\":\"string\",\"name\":\"suite\",\"type\":\"string\"},{\"internalType\":\"bytes\",\"name\":\"encDEK\",\"type\":\"bytes\"}],\"name\":\"setRuleAndEncrypted\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"newOwner\",\"type\":\"address\"}],\"name\":\"transferOwnership\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"string\",\"name\":\"jsonOrBlob\",\"type\":\"string\"}],\"name\":\"updateRule\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"}]",
	ID:  "XRC137",
	Bin: "0x60c0604052600a6080908152695847525f58524331333760b01b60a05260029061002990826101c8565b5060408051808201909152600d81526c7872633133372d72756c65403160981b602082015260039061005b90826101c8565b50348015610067575f5ffd5b506040516117fc3803806117fc83398101604081905261008691610282565b5f80546001600160a01b0319163317905560016100a382826101c8565b506100ac6100fa565b600454600554604051339130917f7362d8e138b6991d915ef8bc5720789aca9c374babb892ff61c3d484646149f9916100ec916002906003905f906103b1565b60405180910390a450610485565b600160405161010991906103ef565b6040518091039020600481905550600160055f8282546101299190610460565b9091555050565b634e487b7160e01b5f52604160045260245ffd5b600181811c9082168061015857607f821691505b60208210810361017657634e487b7160e01b5f52602260045260245ffd5b50919050565b601f8211156101c357805f5260205f20601f840160051c810160208510156101a15750805b601f840160051c820191505b818110156101c0575f81556001016101ad565b50505b505050565b81516001600160401b038111156101e1576101e1610130565b6101f5816101ef8454610144565b8461017c565b6020601f821160018114610227575f83156102105750848201515b5f19600385901b1c1916600184901b1784556101c0565b5f84815260208120601f198516915b828110156102565787850151825560209485019460019092019101610236565b508482101561027357868401515f19600387901b60f8161c191681555b50505050600190811b01905550565b5f60208284031215610292575f5ffd5b81516001600160401b038111156102a7575f5ffd5b8201601f810184136102b7575f5ffd5b80516001600160401b038111156102d0576102d0610130565b604051601f8201601f19908116603f011681016001600160401b03811182821017156102fe576102fe610130565b604052818152828201602001861015610315575f5ffd5b8160208401602083015e5f91810160200191909152949350505050565b5f815461033e81610144565b8085526001821680156103585760018114610374576103a8565b60ff1983166020870152602082151560051b87010193506103a8565b845f5260205f205f5b8381101561039f5781546020828a01015260018201915060208101905061037d565b87016020019450505b50505092915050565b848152608060208201525f6103c96080830186610332565b82810360408401526103db8186610332565b915050821515606083015295945050505050565b5f5f83546103fc81610144565b600182168015610413576001811461042857610455565b60ff1983168652811515820286019350610455565b865f5260205f205f5b8381101561044d57815488820152600190910190602001610431565b505081860193505b509195945050505050565b8082018082111561047f57634e487b7160e01b5f52601160045260245ffd5b92915050565b61136a806104925f395ff3fe608060405234801561000f575f5ffd5b506004361061011c575f3560e01c806380979fff116100a9578063dd87493b1161006e578063dd87493b1461021a578063debfda3014610222578063e4cff5fd1461025c578063ebc143ff14610264578063f2fde38b1461026e575f5ffd5b806380979fff146101b85780638da5cb5b146101c0578063ae5e4c9d146101ea578063b6a0a31a146101fd578063b78ba7c814610212575f5ffd5b80631f5a0bbe116100ef5780631f5a0bbe1461016c57806324788429146101815780634e2ce6d31461019457806366bed7711461019c5780637593a0eb146101af575f5ffd5b806305b664ab146101205780630adf939b14610137578063159525081461014e5780631f0d0b9e14610157575b5f5ffd5b6005545b6040519081526020015b60405180910390f35b61013f610281565b60405161012e93929190610dac565b61012460045481565b61015f6103a2565b60405161012e9190610de0565b61017f61017a366004610df9565b61042e565b005b61017f61018f366004610df9565b610561565b61015f6106be565b61017f6101aa366004610e64565b6106cb565b61012460055481565b600454610124565b5f546101d2906001600160a01b031681565b6040516001600160a01b03909116815260200161012e565b61017f6101f8366004610ea3565b610834565b610205610ad6565b60405161012e9190610f4b565b61015f610b36565b61015f610bbd565b61024c610230366004610df9565b6001600160a01b03165f908152600a6020526040902054151590565b604051901515815260200161012e565b61015f610bcc565b600654151561024c565b61017f61027c366004610df9565b610bd9565b600680546007805491929161029590610f96565b80601f01602080910402602001604051908101604052809291908181526020018280546102c190610f96565b801561030c5780601f106102e35761010080835404028352916020019161030c565b820191905f5260205f20905b8154815290600101906020018083116102ef57829003601f168201915b50505050509080600201805461032190610f96565b80601f016020809104026020016040519081016040528092919081815260200182805461034d90610f96565b80156103985780601f1061036f57610100808354040283529160200191610398565b820191905f5260205f20905b81548152906001019060200180831161037b57829003601f168201915b5050505050905083565b600180546103af90610f96565b80601f01602080910402602001604051908101604052809291908181526020018280546103db90610f96565b80156104265780601f106103fd57610100808354040283529160200191610426565b820191905f5260205f20905b81548152906001019060200180831161040957829003601f168201915b505050505081565b5f546001600160a01b031633146104605760405162461bcd60e51b815260040161045790610fce565b60405180910390fd5b5f546001600160a01b03908116908216036104bd5760405162461bcd60e51b815260206004820152601860248201527f6f776e65722063616e6e6f74206265206578656375746f7200000000000000006044820152606401610457565b6001600160a01b0381165f908152600a6020526040812054900361055e57600980546001810182557f6e1540171b6c0c960b71a7020d9f60077f6af931a8bbf590da0223dacf75c7af0180546001600160a01b0319166001600160a01b03841690811790915590545f828152600a60205260408082209290925590517fae5b7c3b000f575c241001dc9bcb3d8778376889353b07121115574eceff78c59190a25b50565b5f546001600160a01b0316331461058a5760405162461bcd60e51b815260040161045790610fce565b6001600160a01b0381165f908152600a6020526040812054908190036105ae575050565b600954818114610644575f60096105c6600184611005565b815481106105d6576105d6611018565b5f918252602090912001546001600160a01b031690508060096105fa600186611005565b8154811061060a5761060a611018565b5f91825260208083209190910180546001600160a01b0319166001600160a01b03948516179055929091168152600a909152604090208290555b60098054806106555761065561102c565b5f828152602080822083015f1990810180546001600160a01b03191690559092019092556001600160a01b038516808352600a90915260408083208390555190917f4a2cf608bfb427f53279ec7f0eadf48913b9346ccefc3af138dbdec14ea0907d91a2505050565b600380546103af90610f96565b5f546001600160a01b031633146106f45760405162461bcd60e51b815260040161045790610fce565b5f6106ff8383610c65565b9050801561078c5760065461078c5760405162461bcd60e51b815260206004820152604760248201527f656e63727970746564206d6574612072657175697265643a2063616c6c20736560448201527f7452756c65416e64456e63727970746564206f7220736574456e6372797074656064820152661908199a5c9cdd60ca1b608482015260a401610457565b60016107998385836110a0565b507f8296647976a676d06daa5e98ca6a5602e47833537bdded132d4e9fc6f2e3f6b583836040516107cb929190611182565b60405180910390a1806107e0576107e0610caa565b6107e8610cfe565b600454600554600654604080519283529015156020830152339130917f81673658dddcca5cb6dcb78d0329343235f2c6b50d1dd68aa3d7da5a3f8537d7910160405180910390a4505050565b5f546001600160a01b0316331461085d5760405162461bcd60e51b815260040161045790610fce565b8461090057600161086f8789836110a0565b507f8296647976a676d06daa5e98ca6a5602e47833537bdded132d4e9fc6f2e3f6b587876040516108a1929190611182565b60405180910390a16108b1610caa565b6108b9610cfe565b600454600554604080519182525f6020830152339130917f81673658dddcca5cb6dcb78d0329343235f2c6b50d1dd68aa3d7da5a3f8537d7910160405180910390a4610acd565b61090a8787610c65565b61094b5760405162461bcd60e51b815260206004820152601260248201527132bc3832b1ba32b2102c23a91890313637b160711b6044820152606401610457565b60016109588789836110a0565b50604051806060016040528086815260200185858080601f0160208091040260200160405190810160405280939291908181526020018383808284375f92019190915250505090825250604080516020601f8601819004810282018101909252848152918101919085908590819084018382808284375f9201919091525050509152508051600690815560208201516007906109f4908261119d565b5060408201516002820190610a09908261119d565b509050507f8296647976a676d06daa5e98ca6a5602e47833537bdded132d4e9fc6f2e3f6b58787604051610a3e929190611182565b60405180910390a17fdd76066c8d04bdb6560be10fadc9ab380ff9d4c2fe2c3ab057ea662b1f1d5093858585604051610a7993929190611258565b60405180910390a1610a89610cfe565b6004546005546040805191825260016020830152339130917f81673658dddcca5cb6dcb78d0329343235f2c6b50d1dd68aa3d7da5a3f8537d7910160405180910390a45b50505050505050565b60606009805480602002602001604051908101604052809291908181526020018280548015610b2c57602002820191905f5260205f20905b81546001600160a01b03168152600190910190602001808311610b0e575b5050505050905090565b606060018054610b4590610f96565b80601f0160208091040260200160405190810160405280929190818152602001828054610b7190610f96565b8015610b2c5780601f10610b9357610100808354040283529160200191610b2c565b820191905f5260205f20905b815481529060010190602001808311610b9f57509395945050505050565b606060028054610b4590610f96565b600280546103af90610f96565b5f546001600160a01b03163314610c025760405162461bcd60e51b815260040161045790610fce565b6001600160a01b038116610c445760405162461bcd60e51b81526020600482015260096024820152683d32b9379030b2323960b91b6044820152606401610457565b5f80546001600160a01b0319166001600160a01b0392909216919091179055565b5f828260058110801590610c9f5750642c23a9189760d91b610c8a60055f848661127a565b610c93916112a1565b6001600160d81b031916145b925050505b92915050565b60065415610cfc575f600681815590610cc4600782610d34565b610cd1600283015f610d34565b50506040517fb6be618c7ceeaf0fc0418a69af2d6e100b8a0c48ef3e07c380d0913b0565df20905f90a15b565b6001604051610d0d91906112d9565b6040518091039020600481905550600160055f828254610d2d919061134a565b9091555050565b508054610d4090610f96565b5f825580601f10610d4f575050565b601f0160209004905f5260205f209081019061055e91905b80821115610d7a575f8155600101610d67565b5090565b5f81518084528060208401602086015e5f602082860101526020601f19601f83011685010191505092915050565b838152606060208201525f610dc46060830185610d7e565b8281036040840152610dd68185610d7e565b9695505050505050565b602081525f610df26020830184610d7e565b9392505050565b5f60208284031215610e09575f5ffd5b81356001600160a01b0381168114610df2575f5ffd5b5f5f83601f840112610e2f575f5ffd5b50813567ffffffffffffffff811115610e46575f5ffd5b602083019150836020828501011115610e5d575f5ffd5b9250929050565b5f5f60208385031215610e75575f5ffd5b823567ffffffffffffffff811115610e8b575f5ffd5b610e9785828601610e1f565b90969095509350505050565b5f5f5f5f5f5f5f6080888a031215610eb9575f5ffd5b873567ffffffffffffffff811115610ecf575f5ffd5b610edb8a828b01610e1f565b90985096505060208801359450604088013567ffffffffffffffff811115610f01575f5ffd5b610f0d8a828b01610e1f565b909550935050606088013567ffffffffffffffff811115610f2c575f5ffd5b610f388a828b01610e1f565b989b979a50959850939692959293505050565b602080825282518282018190525f918401906040840190835b81811015610f8b5783516001600160a01b0316835260209384019390920191600101610f64565b509095945050505050565b600181811c90821680610faa57607f821691505b602082108103610fc857634e487b7160e01b5f52602260045260245ffd5b50919050565b6020808252600990820152683737ba1037bbb732b960b91b604082015260600190565b634e487b7160e01b5f52601160045260245ffd5b81810381811115610ca457610ca4610ff1565b634e487b7160e01b5f52603260045260245ffd5b634e487b7160e01b5f52603160045260245ffd5b634e487b7160e01b5f52604160045260245ffd5b601f82111561109b57805f5260205f20601f840160051c810160208510156110795750805b601f840160051c820191505b81811015611098575f8155600101611085565b50505b505050565b67ffffffffffffffff8311156110b8576110b8611040565b6110cc836110c68354610f96565b83611054565b5f601f8411600181146110fd575f85156110e65750838201355b5f19600387901b1c1916600186901b178355611098565b5f83815260208120601f198716915b8281101561112c578685013582556020948501946001909201910161110c565b5086821015611148575f1960f88860031b161c19848701351681555b505060018560011b0183555050505050565b81835281816020850137505f828201602090810191909152601f909101601f19169091010190565b602081525f61119560208301848661115a565b949350505050565b815167ffffffffffffffff8111156111b7576111b7611040565b6111cb816111c58454610f96565b84611054565b6020601f8211600181146111fd575f83156111e65750848201515b5f19600385901b1c1916600184901b178455611098565b5f84815260208120601f198516915b8281101561122c578785015182556020948501946001909201910161120c565b508482101561124957868401515f19600387901b60f8161c191681555b50505050600190811b01905550565b838152604060208201525f61127160408301848661115a565b95945050505050565b5f5f85851115611288575f5ffd5b83861115611294575f5ffd5b5050820193919092039150565b80356001600160d81b031981169060058410156112d2576001600160d81b0319600585900360031b81901b82161691505b5092915050565b5f5f83546112e681610f96565b6001821680156112fd57600181146113125761133f565b60ff198316865281151582028601935061133f565b865f5260205f205f5b838110156113375781548882015260019091019060200161131b565b505081860193505b509195945050505050565b80820180821115610ca457610ca4610ff156fea164736f6c634300081e000a",
}

// XRC137 is an auto generated Go binding around an Ethereum contract.
type XRC137 struct {
	abi abi.ABI
}

// GetABI returns the ABI associated with this contract binding.
func (c *XRC137) GetABI() abi.ABI {
	return c.abi
}

// NewXRC137 creates a new instance of XRC137.
func NewXRC137() *XRC137 {
	parsed, err := XRC137MetaData.ParseABI()
	if err != nil {
		panic(errors.New("invalid ABI: " + err.Error()))
	}
	return &XRC137{abi: *parsed}
}

// Instance creates a wrapper for a deployed contract instance at the given address.
// Use this to create the instance object passed to abigen v2 library functions Call, Transact, etc.
func (c *XRC137) Instance(backend bind.ContractBackend, addr common.Address) *bind.BoundContract {
	return bind.NewBoundContract(addr, c.abi, backend, backend, backend)
}

// PackConstructor is the Go binding used to pack the parameters required for
// contract deployment.
//
// Solidity: constructor(string json) returns()
func (xRC137 *XRC137) PackConstructor(json string) []byte {
	enc, err := xRC137.abi.Pack("", json)
	if err != nil {
		panic(err)
	}
	return enc
}

// PackAddExecutor is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x1f5a0bbe.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function addExecutor(address exec) returns()
func (xRC137 *XRC137) PackAddExecutor(exec common.Address) []byte {
	enc, err := xRC137.abi.Pack("addExecutor", exec)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackAddExecutor is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x1f5a0bbe.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function addExecutor(address exec) returns()
func (xRC137 *XRC137) TryPackAddExecutor(exec common.Address) ([]byte, error) {
	return xRC137.abi.Pack("addExecutor", exec)
}

// PackEncrypted is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x0adf939b.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function encrypted() view returns(bytes32 rid, string suite, bytes encDEK)
func (xRC137 *XRC137) PackEncrypted() []byte {
	enc, err := xRC137.abi.Pack("encrypted")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackEncrypted is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x0adf939b.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function encrypted() view returns(bytes32 rid, string suite, bytes encDEK)
func (xRC137 *XRC137) TryPackEncrypted() ([]byte, error) {
	return xRC137.abi.Pack("encrypted")
}

// EncryptedOutput serves as a container for the return parameters of contract
// method Encrypted.
type EncryptedOutput struct {
	Rid    [32]byte
	Suite  string
	EncDEK []byte
}

// UnpackEncrypted is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x0adf939b.
//
// Solidity: function encrypted() view returns(bytes32 rid, string suite, bytes encDEK)
func (xRC137 *XRC137) UnpackEncrypted(data []byte) (EncryptedOutput, error) {
	out, err := xRC137.abi.Unpack("encrypted", data)
	outstruct := new(EncryptedOutput)
	if err != nil {
		return *outstruct, err
	}
	outstruct.Rid = *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)
	outstruct.Suite = *abi.ConvertType(out[1], new(string)).(*string)
	outstruct.EncDEK = *abi.ConvertType(out[2], new([]byte)).(*[]byte)
	return *outstruct, nil
}

// PackGetExecutorList is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xb6a0a31a.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function getExecutorList() view returns(address[])
func (xRC137 *XRC137) PackGetExecutorList() []byte {
	enc, err := xRC137.abi.Pack("getExecutorList")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackGetExecutorList is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xb6a0a31a.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function getExecutorList() view returns(address[])
func (xRC137 *XRC137) TryPackGetExecutorList() ([]byte, error) {
	return xRC137.abi.Pack("getExecutorList")
}

// UnpackGetExecutorList is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xb6a0a31a.
//
// Solidity: function getExecutorList() view returns(address[])
func (xRC137 *XRC137) UnpackGetExecutorList(data []byte) ([]common.Address, error) {
	out, err := xRC137.abi.Unpack("getExecutorList", data)
	if err != nil {
		return *new([]common.Address), err
	}
	out0 := *abi.ConvertType(out[0], new([]common.Address)).(*[]common.Address)
	return out0, nil
}

// PackGetNameXRC is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xdd87493b.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function getNameXRC() view returns(string)
func (xRC137 *XRC137) PackGetNameXRC() []byte {
	enc, err := xRC137.abi.Pack("getNameXRC")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackGetNameXRC is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xdd87493b.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function getNameXRC() view returns(string)
func (xRC137 *XRC137) TryPackGetNameXRC() ([]byte, error) {
	return xRC137.abi.Pack("getNameXRC")
}

// UnpackGetNameXRC is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xdd87493b.
//
// Solidity: function getNameXRC() view returns(string)
func (xRC137 *XRC137) UnpackGetNameXRC(data []byte) (string, error) {
	out, err := xRC137.abi.Unpack("getNameXRC", data)
	if err != nil {
		return *new(string), err
	}
	out0 := *abi.ConvertType(out[0], new(string)).(*string)
	return out0, nil
}

// PackGetRule is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xb78ba7c8.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function getRule() view returns(string)
func (xRC137 *XRC137) PackGetRule() []byte {
	enc, err := xRC137.abi.Pack("getRule")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackGetRule is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xb78ba7c8.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function getRule() view returns(string)
func (xRC137 *XRC137) TryPackGetRule() ([]byte, error) {
	return xRC137.abi.Pack("getRule")
}

// UnpackGetRule is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xb78ba7c8.
//
// Solidity: function getRule() view returns(string)
func (xRC137 *XRC137) UnpackGetRule(data []byte) (string, error) {
	out, err := xRC137.abi.Unpack("getRule", data)
	if err != nil {
		return *new(string), err
	}
	out0 := *abi.ConvertType(out[0], new(string)).(*string)
	return out0, nil
}

// PackGetRuleHash is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x80979fff.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function getRuleHash() view returns(bytes32)
func (xRC137 *XRC137) PackGetRuleHash() []byte {
	enc, err := xRC137.abi.Pack("getRuleHash")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackGetRuleHash is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x80979fff.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function getRuleHash() view returns(bytes32)
func (xRC137 *XRC137) TryPackGetRuleHash() ([]byte, error) {
	return xRC137.abi.Pack("getRuleHash")
}

// UnpackGetRuleHash is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x80979fff.
//
// Solidity: function getRuleHash() view returns(bytes32)
func (xRC137 *XRC137) UnpackGetRuleHash(data []byte) ([32]byte, error) {
	out, err := xRC137.abi.Unpack("getRuleHash", data)
	if err != nil {
		return *new([32]byte), err
	}
	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)
	return out0, nil
}

// PackGetRuleVersion is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x05b664ab.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function getRuleVersion() view returns(uint256)
func (xRC137 *XRC137) PackGetRuleVersion() []byte {
	enc, err := xRC137.abi.Pack("getRuleVersion")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackGetRuleVersion is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x05b664ab.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function getRuleVersion() view returns(uint256)
func (xRC137 *XRC137) TryPackGetRuleVersion() ([]byte, error) {
	return xRC137.abi.Pack("getRuleVersion")
}

// UnpackGetRuleVersion is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x05b664ab.
//
// Solidity: function getRuleVersion() view returns(uint256)
func (xRC137 *XRC137) UnpackGetRuleVersion(data []byte) (*big.Int, error) {
	out, err := xRC137.abi.Unpack("getRuleVersion", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackIsEncrypted is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xebc143ff.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function isEncrypted() view returns(bool)
func (xRC137 *XRC137) PackIsEncrypted() []byte {
	enc, err := xRC137.abi.Pack("isEncrypted")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackIsEncrypted is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xebc143ff.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function isEncrypted() view returns(bool)
func (xRC137 *XRC137) TryPackIsEncrypted() ([]byte, error) {
	return xRC137.abi.Pack("isEncrypted")
}

// UnpackIsEncrypted is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xebc143ff.
//
// Solidity: function isEncrypted() view returns(bool)
func (xRC137 *XRC137) UnpackIsEncrypted(data []byte) (bool, error) {
	out, err := xRC137.abi.Unpack("isEncrypted", data)
	if err != nil {
		return *new(bool), err
	}
	out0 := *abi.ConvertType(out[0], new(bool)).(*bool)
	return out0, nil
}

// PackIsExecutor is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xdebfda30.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function isExecutor(address exec) view returns(bool)
func (xRC137 *XRC137) PackIsExecutor(exec common.Address) []byte {
	enc, err := xRC137.abi.Pack("isExecutor", exec)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackIsExecutor is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xdebfda30.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function isExecutor(address exec) view returns(bool)
func (xRC137 *XRC137) TryPackIsExecutor(exec common.Address) ([]byte, error) {
	return xRC137.abi.Pack("isExecutor", exec)
}

// UnpackIsExecutor is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xdebfda30.
//
// Solidity: function isExecutor(address exec) view returns(bool)
func (xRC137 *XRC137) UnpackIsExecutor(data []byte) (bool, error) {
	out, err := xRC137.abi.Unpack("isExecutor", data)
	if err != nil {
		return *new(bool), err
	}
	out0 := *abi.ConvertType(out[0], new(bool)).(*bool)
	return out0, nil
}

// PackNameXRC is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xe4cff5fd.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function nameXRC() view returns(string)
func (xRC137 *XRC137) PackNameXRC() []byte {
	enc, err := xRC137.abi.Pack("nameXRC")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackNameXRC is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xe4cff5fd.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function nameXRC() view returns(string)
func (xRC137 *XRC137) TryPackNameXRC() ([]byte, error) {
	return xRC137.abi.Pack("nameXRC")
}

// UnpackNameXRC is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xe4cff5fd.
//
// Solidity: function nameXRC() view returns(string)
func (xRC137 *XRC137) UnpackNameXRC(data []byte) (string, error) {
	out, err := xRC137.abi.Unpack("nameXRC", data)
	if err != nil {
		return *new(string), err
	}
	out0 := *abi.ConvertType(out[0], new(string)).(*string)
	return out0, nil
}

// PackOwner is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x8da5cb5b.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function owner() view returns(address)
func (xRC137 *XRC137) PackOwner() []byte {
	enc, err := xRC137.abi.Pack("owner")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackOwner is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x8da5cb5b.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function owner() view returns(address)
func (xRC137 *XRC137) TryPackOwner() ([]byte, error) {
	return xRC137.abi.Pack("owner")
}

// UnpackOwner is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x8da5cb5b.
//
// Solidity: function owner() view returns(address)
func (xRC137 *XRC137) UnpackOwner(data []byte) (common.Address, error) {
	out, err := xRC137.abi.Unpack("owner", data)
	if err != nil {
		return *new(common.Address), err
	}
	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)
	return out0, nil
}

// PackRemoveExecutor is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x24788429.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function removeExecutor(address exec) returns()
func (xRC137 *XRC137) PackRemoveExecutor(exec common.Address) []byte {
	enc, err := xRC137.abi.Pack("removeExecutor", exec)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackRemoveExecutor is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x24788429.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function removeExecutor(address exec) returns()
func (xRC137 *XRC137) TryPackRemoveExecutor(exec common.Address) ([]byte, error) {
	return xRC137.abi.Pack("removeExecutor", exec)
}

// PackRuleHash is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x15952508.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function ruleHash() view returns(bytes32)
func (xRC137 *XRC137) PackRuleHash() []byte {
	enc, err := xRC137.abi.Pack("ruleHash")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackRuleHash is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x15952508.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function ruleHash() view returns(bytes32)
func (xRC137 *XRC137) TryPackRuleHash() ([]byte, error) {
	return xRC137.abi.Pack("ruleHash")
}

// UnpackRuleHash is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x15952508.
//
// Solidity: function ruleHash() view returns(bytes32)
func (xRC137 *XRC137) UnpackRuleHash(data []byte) ([32]byte, error) {
	out, err := xRC137.abi.Unpack("ruleHash", data)
	if err != nil {
		return *new([32]byte), err
	}
	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)
	return out0, nil
}

// PackRuleJson is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x1f0d0b9e.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function ruleJson() view returns(string)
func (xRC137 *XRC137) PackRuleJson() []byte {
	enc, err := xRC137.abi.Pack("ruleJson")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackRuleJson is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x1f0d0b9e.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function ruleJson() view returns(string)
func (xRC137 *XRC137) TryPackRuleJson() ([]byte, error) {
	return xRC137.abi.Pack("ruleJson")
}

// UnpackRuleJson is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x1f0d0b9e.
//
// Solidity: function ruleJson() view returns(string)
func (xRC137 *XRC137) UnpackRuleJson(data []byte) (string, error) {
	out, err := xRC137.abi.Unpack("ruleJson", data)
	if err != nil {
		return *new(string), err
	}
	out0 := *abi.ConvertType(out[0], new(string)).(*string)
	return out0, nil
}

// PackRuleVersion is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x7593a0eb.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function ruleVersion() view returns(uint256)
func (xRC137 *XRC137) PackRuleVersion() []byte {
	enc, err := xRC137.abi.Pack("ruleVersion")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackRuleVersion is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x7593a0eb.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function ruleVersion() view returns(uint256)
func (xRC137 *XRC137) TryPackRuleVersion() ([]byte, error) {
	return xRC137.abi.Pack("ruleVersion")
}

// UnpackRuleVersion is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x7593a0eb.
//
// Solidity: function ruleVersion() view returns(uint256)
func (xRC137 *XRC137) UnpackRuleVersion(data []byte) (*big.Int, error) {
	out, err := xRC137.abi.Unpack("ruleVersion", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackSchemaVersion is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x4e2ce6d3.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function schemaVersion() view returns(string)
func (xRC137 *XRC137) PackSchemaVersion() []byte {
	enc, err := xRC137.abi.Pack("schemaVersion")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackSchemaVersion is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x4e2ce6d3.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function schemaVersion() view returns(string)
func (xRC137 *XRC137) TryPackSchemaVersion() ([]byte, error) {
	return xRC137.abi.Pack("schemaVersion")
}

// UnpackSchemaVersion is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x4e2ce6d3.
//
// Solidity: function schemaVersion() view returns(string)
func (xRC137 *XRC137) UnpackSchemaVersion(data []byte) (string, error) {
	out, err := xRC137.abi.Unpack("schemaVersion", data)
	if err != nil {
		return *new(string), err
	}
	out0 := *abi.ConvertType(out[0], new(string)).(*string)
	return out0, nil
}

// PackSetRuleAndEncrypted is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xae5e4c9d.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function setRuleAndEncrypted(string jsonOrBlob, bytes32 rid, string suite, bytes encDEK) returns()
func (xRC137 *XRC137) PackSetRuleAndEncrypted(jsonOrBlob string, rid [32]byte, suite string, encDEK []byte) []byte {
	enc, err := xRC137.abi.Pack("setRuleAndEncrypted", jsonOrBlob, rid, suite, encDEK)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackSetRuleAndEncrypted is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xae5e4c9d.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function setRuleAndEncrypted(string jsonOrBlob, bytes32 rid, string suite, bytes encDEK) returns()
func (xRC137 *XRC137) TryPackSetRuleAndEncrypted(jsonOrBlob string, rid [32]byte, suite string, encDEK []byte) ([]byte, error) {
	return xRC137.abi.Pack("setRuleAndEncrypted", jsonOrBlob, rid, suite, encDEK)
}

// PackTransferOwnership is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xf2fde38b.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function transferOwnership(address newOwner) returns()
func (xRC137 *XRC137) PackTransferOwnership(newOwner common.Address) []byte {
	enc, err := xRC137.abi.Pack("transferOwnership", newOwner)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackTransferOwnership is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xf2fde38b.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function transferOwnership(address newOwner) returns()
func (xRC137 *XRC137) TryPackTransferOwnership(newOwner common.Address) ([]byte, error) {
	return xRC137.abi.Pack("transferOwnership", newOwner)
}

// PackUpdateRule is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x66bed771.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function updateRule(string jsonOrBlob) returns()
func (xRC137 *XRC137) PackUpdateRule(jsonOrBlob string) []byte {
	enc, err := xRC137.abi.Pack("updateRule", jsonOrBlob)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackUpdateRule is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x66bed771.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function updateRule(string jsonOrBlob) returns()
func (xRC137 *XRC137) TryPackUpdateRule(jsonOrBlob string) ([]byte, error) {
	return xRC137.abi.Pack("updateRule", jsonOrBlob)
}

// XRC137EncryptedCleared represents a EncryptedCleared event raised by the XRC137 contract.
type XRC137EncryptedCleared struct {
	Raw *types.Log // Blockchain specific contextual infos
}

const XRC137EncryptedClearedEventName = "EncryptedCleared"

// ContractEventName returns the user-defined event name.
func (XRC137EncryptedCleared) ContractEventName() string {
	return XRC137EncryptedClearedEventName
}

// UnpackEncryptedClearedEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event EncryptedCleared()
func (xRC137 *XRC137) UnpackEncryptedClearedEvent(log *types.Log) (*XRC137EncryptedCleared, error) {
	event := "EncryptedCleared"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != xRC137.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(XRC137EncryptedCleared)
	if len(log.Data) > 0 {
		if err := xRC137.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range xRC137.abi.Events[event].Inputs {
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

// XRC137EncryptedSet represents a EncryptedSet event raised by the XRC137 contract.
type XRC137EncryptedSet struct {
	Rid   [32]byte
	Suite string
	Raw   *types.Log // Blockchain specific contextual infos
}

const XRC137EncryptedSetEventName = "EncryptedSet"

// ContractEventName returns the user-defined event name.
func (XRC137EncryptedSet) ContractEventName() string {
	return XRC137EncryptedSetEventName
}

// UnpackEncryptedSetEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event EncryptedSet(bytes32 rid, string suite)
func (xRC137 *XRC137) UnpackEncryptedSetEvent(log *types.Log) (*XRC137EncryptedSet, error) {
	event := "EncryptedSet"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != xRC137.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(XRC137EncryptedSet)
	if len(log.Data) > 0 {
		if err := xRC137.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range xRC137.abi.Events[event].Inputs {
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

// XRC137ExecutorAdded represents a ExecutorAdded event raised by the XRC137 contract.
type XRC137ExecutorAdded struct {
	Executor common.Address
	Raw      *types.Log // Blockchain specific contextual infos
}

const XRC137ExecutorAddedEventName = "ExecutorAdded"

// ContractEventName returns the user-defined event name.
func (XRC137ExecutorAdded) ContractEventName() string {
	return XRC137ExecutorAddedEventName
}

// UnpackExecutorAddedEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event ExecutorAdded(address indexed executor)
func (xRC137 *XRC137) UnpackExecutorAddedEvent(log *types.Log) (*XRC137ExecutorAdded, error) {
	event := "ExecutorAdded"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != xRC137.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(XRC137ExecutorAdded)
	if len(log.Data) > 0 {
		if err := xRC137.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range xRC137.abi.Events[event].Inputs {
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

// XRC137ExecutorRemoved represents a ExecutorRemoved event raised by the XRC137 contract.
type XRC137ExecutorRemoved struct {
	Executor common.Address
	Raw      *types.Log // Blockchain specific contextual infos
}

const XRC137ExecutorRemovedEventName = "ExecutorRemoved"

// ContractEventName returns the user-defined event name.
func (XRC137ExecutorRemoved) ContractEventName() string {
	return XRC137ExecutorRemovedEventName
}

// UnpackExecutorRemovedEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event ExecutorRemoved(address indexed executor)
func (xRC137 *XRC137) UnpackExecutorRemovedEvent(log *types.Log) (*XRC137ExecutorRemoved, error) {
	event := "ExecutorRemoved"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != xRC137.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(XRC137ExecutorRemoved)
	if len(log.Data) > 0 {
		if err := xRC137.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range xRC137.abi.Events[event].Inputs {
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

// XRC137RuleUpdated represents a RuleUpdated event raised by the XRC137 contract.
type XRC137RuleUpdated struct {
	NewRule string
	Raw     *types.Log // Blockchain specific contextual infos
}

const XRC137RuleUpdatedEventName = "RuleUpdated"

// ContractEventName returns the user-defined event name.
func (XRC137RuleUpdated) ContractEventName() string {
	return XRC137RuleUpdatedEventName
}

// UnpackRuleUpdatedEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event RuleUpdated(string newRule)
func (xRC137 *XRC137) UnpackRuleUpdatedEvent(log *types.Log) (*XRC137RuleUpdated, error) {
	event := "RuleUpdated"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != xRC137.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(XRC137RuleUpdated)
	if len(log.Data) > 0 {
		if err := xRC137.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range xRC137.abi.Events[event].Inputs {
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

// XRC137XRC137Deployed represents a XRC137Deployed event raised by the XRC137 contract.
type XRC137XRC137Deployed struct {
	RuleAddress    common.Address
	Owner          common.Address
	RuleHash       [32]byte
	Version        *big.Int
	NameXRC        string
	SchemaVersion  string
	EncryptedState bool
	Raw            *types.Log // Blockchain specific contextual infos
}

const XRC137XRC137DeployedEventName = "XRC137Deployed"

// ContractEventName returns the user-defined event name.
func (XRC137XRC137Deployed) ContractEventName() string {
	return XRC137XRC137DeployedEventName
}

// UnpackXRC137DeployedEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event XRC137Deployed(address indexed ruleAddress, address indexed owner, bytes32 indexed ruleHash, uint256 version, string nameXRC, string schemaVersion, bool encryptedState)
func (xRC137 *XRC137) UnpackXRC137DeployedEvent(log *types.Log) (*XRC137XRC137Deployed, error) {
	event := "XRC137Deployed"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != xRC137.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(XRC137XRC137Deployed)
	if len(log.Data) > 0 {
		if err := xRC137.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range xRC137.abi.Events[event].Inputs {
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

// XRC137XRC137Updated represents a XRC137Updated event raised by the XRC137 contract.
type XRC137XRC137Updated struct {
	RuleAddress    common.Address
	Owner          common.Address
	RuleHash       [32]byte
	Version        *big.Int
	EncryptedState bool
	Raw            *types.Log // Blockchain specific contextual infos
}

const XRC137XRC137UpdatedEventName = "XRC137Updated"

// ContractEventName returns the user-defined event name.
func (XRC137XRC137Updated) ContractEventName() string {
	return XRC137XRC137UpdatedEventName
}

// UnpackXRC137UpdatedEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event XRC137Updated(address indexed ruleAddress, address indexed owner, bytes32 indexed ruleHash, uint256 version, bool encryptedState)
func (xRC137 *XRC137) UnpackXRC137UpdatedEvent(log *types.Log) (*XRC137XRC137Updated, error) {
	event := "XRC137Updated"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != xRC137.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(XRC137XRC137Updated)
	if len(log.Data) > 0 {
		if err := xRC137.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range xRC137.abi.Events[event].Inputs {
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
