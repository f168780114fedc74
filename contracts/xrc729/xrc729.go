// Code generated via abigen V2 - DO NOT EDIT.
// This file is a generated binding and any manual changes will be lost.

package xrc729

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

// XRC729MetaData contains all meta data concerning the XRC729 contract.
var XRC729MetaData = bind.MetaData{
	ABI: "[{\"inputs\":[{\"internalType\":\"string[]\",\"name\":\"initialOstcIds\",\"type\":\"string[]\"},{\"internalType\":\"string[]\",\"name\":\"initialOstcJsons\",\"type\":\"string[]\"},{\"internalType\":\"address[]\",\"name\":\"initialExecutors\",\"type\":\"address[]\"}],\"stateMutability\":\"nonpayable\",\"type\":\"constructor\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"executor\",\"type\":\"address\"}],\"name\":\"ExecutorAdded\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"executor\",\"type\":\"address\"}],\"name\":\"ExecutorRemoved\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"string\",\"name\":\"id\",\"type\":\"string\"}],\"name\":\"OSTCDeleted\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"xrc729Address\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"ostcIdHash\",\"type\":\"bytes32\"},{\"indexed\":false,\"internalType\":\"bytes32\",\"name\":\"previousOstcHash\",\"type\":\"bytes32\"},{\"indexed\":false,\"internalType\":\"string\",\"name\":\"id\",\"type\":\"string\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"previousVersion\",\"type\":\"uint256\"}],\"name\":\"OSTCDeletedIndexed\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"string\",\"name\":\"id\",\"type\":\"string\"}],\"name\":\"OSTCSet\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"xrc729Address\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"ostcIdHash\",\"type\":\"bytes32\"},{\"indexed\":false,\"internalType\":\"bytes32\",\"name\":\"ostcHash\",\"type\":\"bytes32\"},{\"indexed\":false,\"internalType\":\"string\",\"name\":\"id\",\"type\":\"string\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"version\",\"type\":\"uint256\"},{\"indexed\":false,\"internalType\":\"uint64\",\"name\":\"updatedAt\",\"type\":\"uint64\"}],\"name\":\"OSTCUpdated\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"previousOwner\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"newOwner\",\"type\":\"address\"}],\"name\":\"OwnershipTransferred\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"xrc729Address\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"nameHash\",\"type\":\"bytes32\"},{\"indexed\":false,\"internalType\":\"string\",\"name\":\"nameXRC\",\"type\":\"string\"},{\"indexed\":false,\"internalType\":\"string\",\"name\":\"schemaVersion\",\"type\":\"string\"}],\"name\":\"XRC729Deployed\",\"type\":\"event\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"exec\",\"type\":\"address\"}],\"name\":\"addExecutor\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"string\",\"name\":\"id\",\"type\":\"string\"}],\"name\":\"deleteOSTC\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"getAllOSTC\",\"outputs\":[{\"internalType\":\"string[]\",\"name\":\"\",\"type\":\"string[]\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"getExecutorList\",\"outputs\":[{\"internalType\":\"address[]\",\"name\":\"\",\"type\":\"address[]\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"getNameXRC\",\"outputs\":[{\"internalType\":\"string\",\"name\":\"\",\"type\":\"string\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"string\",\"name\":\"id\",\"type\":\"string\"}],\"name\":\"getOSTC\",\"outputs\":[{\"internalType\":\"string\",\"name\":\"\",\"type\":\"string\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"string\",\"name\":\"id\",\"type\":\"string\"}],\"name\":\"getOSTCMeta\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"hash\",\"type\":\"bytes32\"},{\"internalType\":\"uint256\",\"name\":\"version\",\"type\":\"uint256\"},{\"internalType\":\"uint64\",\"name\":\"updatedAt\",\"type\":\"uint64\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"string\",\"name\":\"id\",\"type\":\"string\"}],\"name\":\"hasOSTC\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"a\",\"type\":\"address\"}],\"name\":\"isExecutor\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"nameXRC\",\"outputs\":[{\"internalType\":\"string\",\"name\":\"\",\"type\":\"string\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"owner\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"exec\",\"type\":\"address\"}],\"name\":\"removeExecutor\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"schemaVersion\",\"outputs\":[{\"internalType\":\"string\",\"name\":\"\",\"type\":\"string\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"string\",\"name\":\"id\",\"type\":\"string\"},{\"internalType\":\"string\",\"name\":\"json\",\"type\":\"string\"}],\"name\":\"setOSTC\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"newOwner\",\"type\":\"address\"}],\"name\":\"transferOwnership\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"}]",
	ID:  "XRC729",
	Bin: "0x60c0604052600a6080908152695847525f58524337323960b01b60a0525f906100289082610566565b5060408051808201909152600d81526c7872633732392d6f737463403160981b602082015260019061005a9082610566565b50348015610066575f5ffd5b50604051611dde380380611dde8339810160408190526100859161075d565b81518351146100e65760405162461bcd60e51b815260206004820152602260248201527f5852433732393a204f535443206172726179206c656e677468206d69736d61746044820152610c6d60f31b60648201526084015b60405180910390fd5b600280546001600160a01b031916339081179091556040515f907f8be0079c531659141344cd1fd0a4f28419497f9722a3daafe3b4186f6b6457e0908290a35f6040516101339190610859565b60405190819003812090339030907fdd626a1b2a4eb416704759ab6b071bb6743ae2779ef702d5cb4c7b816210f07990610171905f90600190610949565b60405180910390a45f5b83518110156101ce576101c684828151811061019957610199610976565b60200260200101518483815181106101b3576101b3610976565b602002602001015161021360201b60201c565b60010161017b565b505f5b815181101561020a576102028282815181106101ef576101ef610976565b602002602001015161037560201b60201c565b6001016101d1565b50505050610a19565b5f600383604051610224919061098a565b9081526020016040518091039020905080600401545f0361028457600480546001810182555f919091527f8a35acfbc15ff81a39ae7d344fd709f28e8600b4aa8c65c6b64bfe7fe36bd19b0161027a8482610566565b5060048054908201555b8061028f8382610566565b50818051906020012081600101819055506001816002015f8282546102b491906109a0565b90915550506003810180546001600160401b031916426001600160401b03161790556040516102e490849061098a565b604051908190038120907f5353d57ee948733e24dc5b41819003b3587ea9c33ae3493b8ec3ad8207ad2e78905f90a282516020840120600182015460028301546003840154604051339330937f9fe8112f8bd64ed80b8c5d22c073dbda6a46a703b0ed7f47296f2b9fa03349e693610368938b92916001600160401b0316906109c5565b60405180910390a4505050565b6001600160a01b0381166103cb5760405162461bcd60e51b815260206004820152601560248201527f5852433732393a207a65726f206578656375746f72000000000000000000000060448201526064016100dd565b6002546001600160a01b03908116908216036104295760405162461bcd60e51b815260206004820181905260248201527f5852433732393a206f776e65722063616e6e6f74206265206578656375746f7260448201526064016100dd565b6001600160a01b0381165f90815260066020526040902054156104495750565b600580546001810182557f036b6384b5eca791c62761152d0c79bb0604c104a5fb6f4eb0703f3154bb3db00180546001600160a01b0319166001600160a01b03841690811790915590545f828152600660205260408082209290925590517fae5b7c3b000f575c241001dc9bcb3d8778376889353b07121115574eceff78c59190a250565b634e487b7160e01b5f52604160045260245ffd5b600181811c908216806104f657607f821691505b60208210810361051457634e487b7160e01b5f52602260045260245ffd5b50919050565b601f82111561056157805f5260205f20601f840160051c8101602085101561053f5750805b601f840160051c820191505b8181101561055e575f815560010161054b565b50505b505050565b81516001600160401b0381111561057f5761057f6104ce565b6105938161058d84546104e2565b8461051a565b6020601f8211600181146105c5575f83156105ae5750848201515b5f19600385901b1c1916600184901b17845561055e565b5f84815260208120601f198516915b828110156105f457878501518255602094850194600190920191016105d4565b508482101561061157868401515f19600387901b60f8161c191681555b50505050600190811b01905550565b604051601f8201601f191681016001600160401b0381118282101715610648576106486104ce565b604052919050565b5f6001600160401b03821115610668576106686104ce565b5060051b60200190565b5f82601f830112610681575f5ffd5b815161069461068f82610650565b610620565b8082825260208201915060208360051b8601019250858311156106b5575f5ffd5b602085015b838110156107535780516001600160401b038111156106d7575f5ffd5b8601603f810188136106e7575f5ffd5b60208101516001600160401b03811115610703576107036104ce565b610716601f8201601f1916602001610620565b8181526040838301018a101561072a575f5ffd5b8160408401602083015e5f602083830101528086525050506020830192506020810190506106ba565b5095945050505050565b5f5f5f6060848603121561076f575f5ffd5b83516001600160401b03811115610784575f5ffd5b61079086828701610672565b602086015190945090506001600160401b038111156107ad575f5ffd5b6107b986828701610672565b604086015190935090506001600160401b038111156107d6575f5ffd5b8401601f810186136107e6575f5ffd5b80516107f461068f82610650565b8082825260208201915060208360051b850101925088831115610815575f5ffd5b6020840193505b8284101561084b5783516001600160a01b038116811461083a575f5ffd5b82526020938401939091019061081c565b809450505050509250925092565b5f5f8354610866816104e2565b60018216801561087d5760018114610892576108bf565b60ff19831686528115158202860193506108bf565b865f5260205f205f5b838110156108b75781548882015260019091019060200161089b565b505081860193505b509195945050505050565b5f81546108d6816104e2565b8085526001821680156108f0576001811461090c57610940565b60ff1983166020870152602082151560051b8701019350610940565b845f5260205f205f5b838110156109375781546020828a010152600182019150602081019050610915565b87016020019450505b50505092915050565b604081525f61095b60408301856108ca565b828103602084015261096d81856108ca565b95945050505050565b634e487b7160e01b5f52603260045260245ffd5b5f82518060208501845e5f920191825250919050565b808201808211156109bf57634e487b7160e01b5f52601160045260245ffd5b92915050565b848152608060208201525f8451806080840152806020870160a085015e5f60a082850181019190915260408401959095526001600160401b0393909316606083015250601f909101601f1916010192915050565b6113b880610a265f395ff3fe608060405234801561000f575f5ffd5b50600436106100f0575f3560e01c80639335a4d111610093578063debfda3011610063578063debfda3014610212578063e4cff5fd1461023c578063f2fde38b14610244578063ff283c2414610257575f5ffd5b80639335a4d1146101cf578063a3df531a146101e2578063b6a0a31a146101f5578063dd87493b1461020a575f5ffd5b80634e2ce6d3116100ce5780634e2ce6d3146101595780636de2fa4a1461016e5780638153529d146101915780638da5cb5b146101a4575f5ffd5b80631f5a0bbe146100f457806324788429146101095780633d9b1fcf1461011c575b5f5ffd5b610107610102366004610f24565b61026c565b005b610107610117366004610f24565b6102ab565b61012f61012a366004610f96565b6102de565b60408051938452602084019290925267ffffffffffffffff16908201526060015b60405180910390f35b610161610314565b6040516101509190611003565b61018161017c366004610f96565b6103a0565b6040519015158152602001610150565b61010761019f366004611015565b6103d1565b6002546101b7906001600160a01b031681565b6040516001600160a01b039091168152602001610150565b6101616101dd366004610f96565b610472565b6101076101f0366004610f96565b61050d565b6101fd6107e5565b6040516101509190611081565b610161610845565b610181610220366004610f24565b6001600160a01b03165f90815260066020526040902054151590565b6101616108cb565b610107610252366004610f24565b6108d7565b61025f6109b2565b60405161015091906110cc565b6002546001600160a01b0316331461029f5760405162461bcd60e51b81526004016102969061112f565b60405180910390fd5b6102a881610a86565b50565b6002546001600160a01b031633146102d55760405162461bcd60e51b81526004016102969061112f565b6102a881610bd7565b5f5f5f5f6102ec8686610d0b565b60018101546002820154600390920154909891975067ffffffffffffffff1695509350505050565b600180546103219061115a565b80601f016020809104026020016040519081016040528092919081815260200182805461034d9061115a565b80156103985780601f1061036f57610100808354040283529160200191610398565b820191905f5260205f20905b81548152906001019060200180831161037b57829003601f168201915b505050505081565b5f600383836040516103b3929190611192565b9081526020016040518091039020600401545f141590505b92915050565b6002546001600160a01b031633146103fb5760405162461bcd60e51b81526004016102969061112f565b61046c84848080601f0160208091040260200160405190810160405280939291908181526020018383808284375f9201919091525050604080516020601f880181900481028201810190925286815292508691508590819084018382808284375f92019190915250610d7592505050565b50505050565b606061047e8383610d0b565b80546104899061115a565b80601f01602080910402602001604051908101604052809291908181526020018280546104b59061115a565b80156105005780601f106104d757610100808354040283529160200191610500565b820191905f5260205f20905b8154815290600101906020018083116104e357829003601f168201915b5050505050905092915050565b6002546001600160a01b031633146105375760405162461bcd60e51b81526004016102969061112f565b5f6003838360405161054a929190611192565b908152602001604051809103902090505f81600401549050805f036105a55760405162461bcd60e51b8152602060048201526011602482015270161490cdcc8e4e881b9bdd08199bdd5b99607a1b6044820152606401610296565b600182015460028301546004548381146106c3575f60046105c76001846111b5565b815481106105d7576105d76111c8565b905f5260205f200180546105ea9061115a565b80601f01602080910402602001604051908101604052809291908181526020018280546106169061115a565b80156106615780601f1061063857610100808354040283529160200191610661565b820191905f5260205f20905b81548152906001019060200180831161064457829003601f168201915b5050505050905080600460018761067891906111b5565b81548110610688576106886111c8565b905f5260205f2001908161069c919061123c565b50846003826040516106ae91906112f7565b90815260405190819003602001902060040155505b60048054806106d4576106d461130d565b600190038181905f5260205f20015f6106ed9190610eda565b905560038787604051610701929190611192565b9081526040519081900360200190205f61071b8282610eda565b505f600182018190556002820181905560038201805467ffffffffffffffff191690556004909101556040516107549088908890611192565b604051908190038120907fca6f79bf5e53699b3a86a2fcc595e50a0bbb5424fd5ae04acb63be266a15c0bd905f90a28686604051610793929190611192565b60405190819003812090339030907f9d967bb90a60b5867880c81088e6a89af21ce9e064e38502c9972ed7a73b25d3906107d49088908d908d908a90611321565b60405180910390a450505050505050565b6060600580548060200260200160405190810160405280929190818152602001828054801561083b57602002820191905f5260205f20905b81546001600160a01b0316815260019091019060200180831161081d575b5050505050905090565b60605f80546108539061115a565b80601f016020809104026020016040519081016040528092919081815260200182805461087f9061115a565b801561083b5780601f106108a15761010080835404028352916020019161083b565b820191905f5260205f20905b8154815290600101906020018083116108ad57509395945050505050565b5f80546103219061115a565b6002546001600160a01b031633146109015760405162461bcd60e51b81526004016102969061112f565b6001600160a01b03811661094e5760405162461bcd60e51b81526020600482015260146024820152735852433732393a207a65726f206164647265737360601b6044820152606401610296565b61095781610bd7565b6002546040516001600160a01b038084169216907f8be0079c531659141344cd1fd0a4f28419497f9722a3daafe3b4186f6b6457e0905f90a3600280546001600160a01b0319166001600160a01b0392909216919091179055565b60606004805480602002602001604051908101604052809291908181526020015f905b82821015610a7d578382905f5260205f200180546109f29061115a565b80601f0160208091040260200160405190810160405280929190818152602001828054610a1e9061115a565b8015610a695780601f10610a4057610100808354040283529160200191610a69565b820191905f5260205f20905b815481529060010190602001808311610a4c57829003601f168201915b5050505050815260200190600101906109d5565b50505050905090565b6001600160a01b038116610ad45760405162461bcd60e51b81526020600482015260156024820152742c29219b991c9d103d32b9379032bc32b1baba37b960591b6044820152606401610296565b6002546001600160a01b0390811690821603610b325760405162461bcd60e51b815260206004820181905260248201527f5852433732393a206f776e65722063616e6e6f74206265206578656375746f726044820152606401610296565b6001600160a01b0381165f9081526006602052604090205415610b525750565b600580546001810182557f036b6384b5eca791c62761152d0c79bb0604c104a5fb6f4eb0703f3154bb3db00180546001600160a01b0319166001600160a01b03841690811790915590545f828152600660205260408082209290925590517fae5b7c3b000f575c241001dc9bcb3d8778376889353b07121115574eceff78c59190a250565b6001600160a01b0381165f9081526006602052604081205490819003610bfb575050565b600554818114610c91575f6005610c136001846111b5565b81548110610c2357610c236111c8565b5f918252602090912001546001600160a01b03169050806005610c476001866111b5565b81548110610c5757610c576111c8565b5f91825260208083209190910180546001600160a01b0319166001600160a01b039485161790559290911681526006909152604090208290555b6005805480610ca257610ca261130d565b5f828152602080822083015f1990810180546001600160a01b03191690559092019092556001600160a01b038516808352600690915260408083208390555190917f4a2cf608bfb427f53279ec7f0eadf48913b9346ccefc3af138dbdec14ea0907d91a2505050565b5f60038383604051610d1e929190611192565b9081526020016040518091039020905080600401545f036103cb5760405162461bcd60e51b8152602060048201526011602482015270161490cdcc8e4e881b9bdd08199bdd5b99607a1b6044820152606401610296565b5f600383604051610d8691906112f7565b9081526020016040518091039020905080600401545f03610de657600480546001810182555f919091527f8a35acfbc15ff81a39ae7d344fd709f28e8600b4aa8c65c6b64bfe7fe36bd19b01610ddc848261123c565b5060048054908201555b80610df1838261123c565b50818051906020012081600101819055506001816002015f828254610e16919061135f565b909155505060038101805467ffffffffffffffff19164267ffffffffffffffff16179055604051610e489084906112f7565b604051908190038120907f5353d57ee948733e24dc5b41819003b3587ea9c33ae3493b8ec3ad8207ad2e78905f90a282516020840120600182015460028301546003840154604051339330937f9fe8112f8bd64ed80b8c5d22c073dbda6a46a703b0ed7f47296f2b9fa03349e693610ecd938b929167ffffffffffffffff1690611372565b60405180910390a4505050565b508054610ee69061115a565b5f825580601f10610ef5575050565b601f0160209004905f5260205f20908101906102a891905b80821115610f20575f8155600101610f0d565b5090565b5f60208284031215610f34575f5ffd5b81356001600160a01b0381168114610f4a575f5ffd5b9392505050565b5f5f83601f840112610f61575f5ffd5b50813567ffffffffffffffff811115610f78575f5ffd5b602083019150836020828501011115610f8f575f5ffd5b9250929050565b5f5f60208385031215610fa7575f5ffd5b823567ffffffffffffffff811115610fbd575f5ffd5b610fc985828601610f51565b90969095509350505050565b5f81518084528060208401602086015e5f602082860101526020601f19601f83011685010191505092915050565b602081525f610f4a6020830184610fd5565b5f5f5f5f60408587031215611028575f5ffd5b843567ffffffffffffffff81111561103e575f5ffd5b61104a87828801610f51565b909550935050602085013567ffffffffffffffff811115611069575f5ffd5b61107587828801610f51565b95989497509550505050565b602080825282518282018190525f918401906040840190835b818110156110c15783516001600160a01b031683526020938401939092019160010161109a565b509095945050505050565b5f602082016020835280845180835260408501915060408160051b8601019250602086015f5b8281101561112357603f1987860301845261110e858351610fd5565b945060209384019391909101906001016110f2565b50929695505050505050565b6020808252601190820152702c29219b991c9d103737ba1037bbb732b960791b604082015260600190565b600181811c9082168061116e57607f821691505b60208210810361118c57634e487b7160e01b5f52602260045260245ffd5b50919050565b818382375f9101908152919050565b634e487b7160e01b5f52601160045260245ffd5b818103818111156103cb576103cb6111a1565b634e487b7160e01b5f52603260045260245ffd5b634e487b7160e01b5f52604160045260245ffd5b601f82111561123757805f5260205f20601f840160051c810160208510156112155750805b601f840160051c820191505b81811015611234575f8155600101611221565b50505b505050565b815167ffffffffffffffff811115611256576112566111dc565b61126a81611264845461115a565b846111f0565b6020601f82116001811461129c575f83156112855750848201515b5f19600385901b1c1916600184901b178455611234565b5f84815260208120601f198516915b828110156112cb57878501518255602094850194600190920191016112ab565b50848210156112e857868401515f19600387901b60f8161c191681555b50505050600190811b01905550565b5f82518060208501845e5f920191825250919050565b634e487b7160e01b5f52603160045260245ffd5b84815260606020820152826060820152828460808301375f608084830101525f6080601f19601f860116830101905082604083015295945050505050565b808201808211156103cb576103cb6111a1565b848152608060208201525f61138a6080830186610fd5565b905083604083015267ffffffffffffffff831660608301529594505050505056fea164736f6c634300081e000a",
}

// XRC729 is an auto generated Go binding around an Ethereum contract.
type XRC729 struct {
	abi abi.ABI
}

// GetABI returns the ABI associated with this contract binding.
func (c *XRC729) GetABI() abi.ABI {
	return c.abi
}

// NewXRC729 creates a new instance of XRC729.
func NewXRC729() *XRC729 {
	parsed, err := XRC729MetaData.ParseABI()
	if err != nil {
		panic(errors.New("invalid ABI: " + err.Error()))
	}
	return &XRC729{abi: *parsed}
}

// Instance creates a wrapper for a deployed contract instance at the given address.
// Use this to create the instance object passed to abigen v2 library functions Call, Transact, etc.
func (c *XRC729) Instance(backend bind.ContractBackend, addr common.Address) *bind.BoundContract {
	return bind.NewBoundContract(addr, c.abi, backend, backend, backend)
}

// PackConstructor is the Go binding used to pack the parameters required for
// contract deployment.
//
// Solidity: constructor(string[] initialOstcIds, string[] initialOstcJsons, address[] initialExecutors) returns()
func (xRC729 *XRC729) PackConstructor(initialOstcIds []string, initialOstcJsons []string, initialExecutors []common.Address) []byte {
	enc, err := xRC729.abi.Pack("", initialOstcIds, initialOstcJsons, initialExecutors)
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
func (xRC729 *XRC729) PackAddExecutor(exec common.Address) []byte {
	enc, err := xRC729.abi.Pack("addExecutor", exec)
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
func (xRC729 *XRC729) TryPackAddExecutor(exec common.Address) ([]byte, error) {
	return xRC729.abi.Pack("addExecutor", exec)
}

// PackDeleteOSTC is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xa3df531a.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function deleteOSTC(string id) returns()
func (xRC729 *XRC729) PackDeleteOSTC(id string) []byte {
	enc, err := xRC729.abi.Pack("deleteOSTC", id)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackDeleteOSTC is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xa3df531a.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function deleteOSTC(string id) returns()
func (xRC729 *XRC729) TryPackDeleteOSTC(id string) ([]byte, error) {
	return xRC729.abi.Pack("deleteOSTC", id)
}

// PackGetAllOSTC is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xff283c24.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function getAllOSTC() view returns(string[])
func (xRC729 *XRC729) PackGetAllOSTC() []byte {
	enc, err := xRC729.abi.Pack("getAllOSTC")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackGetAllOSTC is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xff283c24.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function getAllOSTC() view returns(string[])
func (xRC729 *XRC729) TryPackGetAllOSTC() ([]byte, error) {
	return xRC729.abi.Pack("getAllOSTC")
}

// UnpackGetAllOSTC is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xff283c24.
//
// Solidity: function getAllOSTC() view returns(string[])
func (xRC729 *XRC729) UnpackGetAllOSTC(data []byte) ([]string, error) {
	out, err := xRC729.abi.Unpack("getAllOSTC", data)
	if err != nil {
		return *new([]string), err
	}
	out0 := *abi.ConvertType(out[0], new([]string)).(*[]string)
	return out0, nil
}

// PackGetExecutorList is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xb6a0a31a.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function getExecutorList() view returns(address[])
func (xRC729 *XRC729) PackGetExecutorList() []byte {
	enc, err := xRC729.abi.Pack("getExecutorList")
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
func (xRC729 *XRC729) TryPackGetExecutorList() ([]byte, error) {
	return xRC729.abi.Pack("getExecutorList")
}

// UnpackGetExecutorList is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xb6a0a31a.
//
// Solidity: function getExecutorList() view returns(address[])
func (xRC729 *XRC729) UnpackGetExecutorList(data []byte) ([]common.Address, error) {
	out, err := xRC729.abi.Unpack("getExecutorList", data)
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
func (xRC729 *XRC729) PackGetNameXRC() []byte {
	enc, err := xRC729.abi.Pack("getNameXRC")
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
func (xRC729 *XRC729) TryPackGetNameXRC() ([]byte, error) {
	return xRC729.abi.Pack("getNameXRC")
}

// UnpackGetNameXRC is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xdd87493b.
//
// Solidity: function getNameXRC() view returns(string)
func (xRC729 *XRC729) UnpackGetNameXRC(data []byte) (string, error) {
	out, err := xRC729.abi.Unpack("getNameXRC", data)
	if err != nil {
		return *new(string), err
	}
	out0 := *abi.ConvertType(out[0], new(string)).(*string)
	return out0, nil
}

// PackGetOSTC is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x9335a4d1.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function getOSTC(string id) view returns(string)
func (xRC729 *XRC729) PackGetOSTC(id string) []byte {
	enc, err := xRC729.abi.Pack("getOSTC", id)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackGetOSTC is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x9335a4d1.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function getOSTC(string id) view returns(string)
func (xRC729 *XRC729) TryPackGetOSTC(id string) ([]byte, error) {
	return xRC729.abi.Pack("getOSTC", id)
}

// UnpackGetOSTC is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x9335a4d1.
//
// Solidity: function getOSTC(string id) view returns(string)
func (xRC729 *XRC729) UnpackGetOSTC(data []byte) (string, error) {
	out, err := xRC729.abi.Unpack("getOSTC", data)
	if err != nil {
		return *new(string), err
	}
	out0 := *abi.ConvertType(out[0], new(string)).(*string)
	return out0, nil
}

// PackGetOSTCMeta is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x3d9b1fcf.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function getOSTCMeta(string id) view returns(bytes32 hash, uint256 version, uint64 updatedAt)
func (xRC729 *XRC729) PackGetOSTCMeta(id string) []byte {
	enc, err := xRC729.abi.Pack("getOSTCMeta", id)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackGetOSTCMeta is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x3d9b1fcf.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function getOSTCMeta(string id) view returns(bytes32 hash, uint256 version, uint64 updatedAt)
func (xRC729 *XRC729) TryPackGetOSTCMeta(id string) ([]byte, error) {
	return xRC729.abi.Pack("getOSTCMeta", id)
}

// GetOSTCMetaOutput serves as a container for the return parameters of contract
// method GetOSTCMeta.
type GetOSTCMetaOutput struct {
	Hash      [32]byte
	Version   *big.Int
	UpdatedAt uint64
}

// UnpackGetOSTCMeta is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x3d9b1fcf.
//
// Solidity: function getOSTCMeta(string id) view returns(bytes32 hash, uint256 version, uint64 updatedAt)
func (xRC729 *XRC729) UnpackGetOSTCMeta(data []byte) (GetOSTCMetaOutput, error) {
	out, err := xRC729.abi.Unpack("getOSTCMeta", data)
	outstruct := new(GetOSTCMetaOutput)
	if err != nil {
		return *outstruct, err
	}
	outstruct.Hash = *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)
	outstruct.Version = abi.ConvertType(out[1], new(big.Int)).(*big.Int)
	outstruct.UpdatedAt = *abi.ConvertType(out[2], new(uint64)).(*uint64)
	return *outstruct, nil
}

// PackHasOSTC is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x6de2fa4a.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function hasOSTC(string id) view returns(bool)
func (xRC729 *XRC729) PackHasOSTC(id string) []byte {
	enc, err := xRC729.abi.Pack("hasOSTC", id)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackHasOSTC is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x6de2fa4a.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function hasOSTC(string id) view returns(bool)
func (xRC729 *XRC729) TryPackHasOSTC(id string) ([]byte, error) {
	return xRC729.abi.Pack("hasOSTC", id)
}

// UnpackHasOSTC is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x6de2fa4a.
//
// Solidity: function hasOSTC(string id) view returns(bool)
func (xRC729 *XRC729) UnpackHasOSTC(data []byte) (bool, error) {
	out, err := xRC729.abi.Unpack("hasOSTC", data)
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
// Solidity: function isExecutor(address a) view returns(bool)
func (xRC729 *XRC729) PackIsExecutor(a common.Address) []byte {
	enc, err := xRC729.abi.Pack("isExecutor", a)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackIsExecutor is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xdebfda30.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function isExecutor(address a) view returns(bool)
func (xRC729 *XRC729) TryPackIsExecutor(a common.Address) ([]byte, error) {
	return xRC729.abi.Pack("isExecutor", a)
}

// UnpackIsExecutor is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xdebfda30.
//
// Solidity: function isExecutor(address a) view returns(bool)
func (xRC729 *XRC729) UnpackIsExecutor(data []byte) (bool, error) {
	out, err := xRC729.abi.Unpack("isExecutor", data)
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
func (xRC729 *XRC729) PackNameXRC() []byte {
	enc, err := xRC729.abi.Pack("nameXRC")
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
func (xRC729 *XRC729) TryPackNameXRC() ([]byte, error) {
	return xRC729.abi.Pack("nameXRC")
}

// UnpackNameXRC is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xe4cff5fd.
//
// Solidity: function nameXRC() view returns(string)
func (xRC729 *XRC729) UnpackNameXRC(data []byte) (string, error) {
	out, err := xRC729.abi.Unpack("nameXRC", data)
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
func (xRC729 *XRC729) PackOwner() []byte {
	enc, err := xRC729.abi.Pack("owner")
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
func (xRC729 *XRC729) TryPackOwner() ([]byte, error) {
	return xRC729.abi.Pack("owner")
}

// UnpackOwner is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x8da5cb5b.
//
// Solidity: function owner() view returns(address)
func (xRC729 *XRC729) UnpackOwner(data []byte) (common.Address, error) {
	out, err := xRC729.abi.Unpack("owner", data)
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
func (xRC729 *XRC729) PackRemoveExecutor(exec common.Address) []byte {
	enc, err := xRC729.abi.Pack("removeExecutor", exec)
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
func (xRC729 *XRC729) TryPackRemoveExecutor(exec common.Address) ([]byte, error) {
	return xRC729.abi.Pack("removeExecutor", exec)
}

// PackSchemaVersion is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x4e2ce6d3.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function schemaVersion() view returns(string)
func (xRC729 *XRC729) PackSchemaVersion() []byte {
	enc, err := xRC729.abi.Pack("schemaVersion")
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
func (xRC729 *XRC729) TryPackSchemaVersion() ([]byte, error) {
	return xRC729.abi.Pack("schemaVersion")
}

// UnpackSchemaVersion is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x4e2ce6d3.
//
// Solidity: function schemaVersion() view returns(string)
func (xRC729 *XRC729) UnpackSchemaVersion(data []byte) (string, error) {
	out, err := xRC729.abi.Unpack("schemaVersion", data)
	if err != nil {
		return *new(string), err
	}
	out0 := *abi.ConvertType(out[0], new(string)).(*string)
	return out0, nil
}

// PackSetOSTC is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x8153529d.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function setOSTC(string id, string json) returns()
func (xRC729 *XRC729) PackSetOSTC(id string, json string) []byte {
	enc, err := xRC729.abi.Pack("setOSTC", id, json)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackSetOSTC is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x8153529d.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function setOSTC(string id, string json) returns()
func (xRC729 *XRC729) TryPackSetOSTC(id string, json string) ([]byte, error) {
	return xRC729.abi.Pack("setOSTC", id, json)
}

// PackTransferOwnership is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xf2fde38b.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function transferOwnership(address newOwner) returns()
func (xRC729 *XRC729) PackTransferOwnership(newOwner common.Address) []byte {
	enc, err := xRC729.abi.Pack("transferOwnership", newOwner)
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
func (xRC729 *XRC729) TryPackTransferOwnership(newOwner common.Address) ([]byte, error) {
	return xRC729.abi.Pack("transferOwnership", newOwner)
}

// XRC729ExecutorAdded represents a ExecutorAdded event raised by the XRC729 contract.
type XRC729ExecutorAdded struct {
	Executor common.Address
	Raw      *types.Log // Blockchain specific contextual infos
}

const XRC729ExecutorAddedEventName = "ExecutorAdded"

// ContractEventName returns the user-defined event name.
func (XRC729ExecutorAdded) ContractEventName() string {
	return XRC729ExecutorAddedEventName
}

// UnpackExecutorAddedEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event ExecutorAdded(address indexed executor)
func (xRC729 *XRC729) UnpackExecutorAddedEvent(log *types.Log) (*XRC729ExecutorAdded, error) {
	event := "ExecutorAdded"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != xRC729.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(XRC729ExecutorAdded)
	if len(log.Data) > 0 {
		if err := xRC729.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range xRC729.abi.Events[event].Inputs {
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

// XRC729ExecutorRemoved represents a ExecutorRemoved event raised by the XRC729 contract.
type XRC729ExecutorRemoved struct {
	Executor common.Address
	Raw      *types.Log // Blockchain specific contextual infos
}

const XRC729ExecutorRemovedEventName = "ExecutorRemoved"

// ContractEventName returns the user-defined event name.
func (XRC729ExecutorRemoved) ContractEventName() string {
	return XRC729ExecutorRemovedEventName
}

// UnpackExecutorRemovedEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event ExecutorRemoved(address indexed executor)
func (xRC729 *XRC729) UnpackExecutorRemovedEvent(log *types.Log) (*XRC729ExecutorRemoved, error) {
	event := "ExecutorRemoved"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != xRC729.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(XRC729ExecutorRemoved)
	if len(log.Data) > 0 {
		if err := xRC729.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range xRC729.abi.Events[event].Inputs {
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

// XRC729OSTCDeleted represents a OSTCDeleted event raised by the XRC729 contract.
type XRC729OSTCDeleted struct {
	Id  common.Hash
	Raw *types.Log // Blockchain specific contextual infos
}

const XRC729OSTCDeletedEventName = "OSTCDeleted"

// ContractEventName returns the user-defined event name.
func (XRC729OSTCDeleted) ContractEventName() string {
	return XRC729OSTCDeletedEventName
}

// UnpackOSTCDeletedEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event OSTCDeleted(string indexed id)
func (xRC729 *XRC729) UnpackOSTCDeletedEvent(log *types.Log) (*XRC729OSTCDeleted, error) {
	event := "OSTCDeleted"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != xRC729.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(XRC729OSTCDeleted)
	if len(log.Data) > 0 {
		if err := xRC729.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range xRC729.abi.Events[event].Inputs {
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

// XRC729OSTCDeletedIndexed represents a OSTCDeletedIndexed event raised by the XRC729 contract.
type XRC729OSTCDeletedIndexed struct {
	Xrc729Address    common.Address
	Owner            common.Address
	OstcIdHash       [32]byte
	PreviousOstcHash [32]byte
	Id               string
	PreviousVersion  *big.Int
	Raw              *types.Log // Blockchain specific contextual infos
}

const XRC729OSTCDeletedIndexedEventName = "OSTCDeletedIndexed"

// ContractEventName returns the user-defined event name.
func (XRC729OSTCDeletedIndexed) ContractEventName() string {
	return XRC729OSTCDeletedIndexedEventName
}

// UnpackOSTCDeletedIndexedEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event OSTCDeletedIndexed(address indexed xrc729Address, address indexed owner, bytes32 indexed ostcIdHash, bytes32 previousOstcHash, string id, uint256 previousVersion)
func (xRC729 *XRC729) UnpackOSTCDeletedIndexedEvent(log *types.Log) (*XRC729OSTCDeletedIndexed, error) {
	event := "OSTCDeletedIndexed"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != xRC729.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(XRC729OSTCDeletedIndexed)
	if len(log.Data) > 0 {
		if err := xRC729.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range xRC729.abi.Events[event].Inputs {
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

// XRC729OSTCSet represents a OSTCSet event raised by the XRC729 contract.
type XRC729OSTCSet struct {
	Id  common.Hash
	Raw *types.Log // Blockchain specific contextual infos
}

const XRC729OSTCSetEventName = "OSTCSet"

// ContractEventName returns the user-defined event name.
func (XRC729OSTCSet) ContractEventName() string {
	return XRC729OSTCSetEventName
}

// UnpackOSTCSetEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event OSTCSet(string indexed id)
func (xRC729 *XRC729) UnpackOSTCSetEvent(log *types.Log) (*XRC729OSTCSet, error) {
	event := "OSTCSet"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != xRC729.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(XRC729OSTCSet)
	if len(log.Data) > 0 {
		if err := xRC729.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range xRC729.abi.Events[event].Inputs {
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

// XRC729OSTCUpdated represents a OSTCUpdated event raised by the XRC729 contract.
type XRC729OSTCUpdated struct {
	Xrc729Address common.Address
	Owner         common.Address
	OstcIdHash    [32]byte
	OstcHash      [32]byte
	Id            string
	Version       *big.Int
	UpdatedAt     uint64
	Raw           *types.Log // Blockchain specific contextual infos
}

const XRC729OSTCUpdatedEventName = "OSTCUpdated"

// ContractEventName returns the user-defined event name.
func (XRC729OSTCUpdated) ContractEventName() string {
	return XRC729OSTCUpdatedEventName
}

// UnpackOSTCUpdatedEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event OSTCUpdated(address indexed xrc729Address, address indexed owner, bytes32 indexed ostcIdHash, bytes32 ostcHash, string id, uint256 version, uint64 updatedAt)
func (xRC729 *XRC729) UnpackOSTCUpdatedEvent(log *types.Log) (*XRC729OSTCUpdated, error) {
	event := "OSTCUpdated"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != xRC729.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(XRC729OSTCUpdated)
	if len(log.Data) > 0 {
		if err := xRC729.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range xRC729.abi.Events[event].Inputs {
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

// XRC729OwnershipTransferred represents a OwnershipTransferred event raised by the XRC729 contract.
type XRC729OwnershipTransferred struct {
	PreviousOwner common.Address
	NewOwner      common.Address
	Raw           *types.Log // Blockchain specific contextual infos
}

const XRC729OwnershipTransferredEventName = "OwnershipTransferred"

// ContractEventName returns the user-defined event name.
func (XRC729OwnershipTransferred) ContractEventName() string {
	return XRC729OwnershipTransferredEventName
}

// UnpackOwnershipTransferredEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event OwnershipTransferred(address indexed previousOwner, address indexed newOwner)
func (xRC729 *XRC729) UnpackOwnershipTransferredEvent(log *types.Log) (*XRC729OwnershipTransferred, error) {
	event := "OwnershipTransferred"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != xRC729.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(XRC729OwnershipTransferred)
	if len(log.Data) > 0 {
		if err := xRC729.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range xRC729.abi.Events[event].Inputs {
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

// XRC729XRC729Deployed represents a XRC729Deployed event raised by the XRC729 contract.
type XRC729XRC729Deployed struct {
	Xrc729Address common.Address
	Owner         common.Address
	NameHash      [32]byte
	NameXRC       string
	SchemaVersion string
	Raw           *types.Log // Blockchain specific contextual infos
}

const XRC729XRC729DeployedEventName = "XRC729Deployed"

// ContractEventName returns the user-defined event name.
func (XRC729XRC729Deployed) ContractEventName() string {
	return XRC729XRC729DeployedEventName
}

// UnpackXRC729DeployedEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event XRC729Deployed(address indexed xrc729Address, address indexed owner, bytes32 indexed nameHash, string nameXRC, string schemaVersion)
func (xRC729 *XRC729) UnpackXRC729DeployedEvent(log *types.Log) (*XRC729XRC729Deployed, error) {
	event := "XRC729Deployed"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != xRC729.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(XRC729XRC729Deployed)
	if len(log.Data) > 0 {
		if err := xRC729.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range xRC729.abi.Events[event].Inputs {
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
