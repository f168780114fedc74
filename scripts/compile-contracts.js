#!/usr/bin/env node
// Compiles contracts/*.sol with the pinned solc-js from .tools/ (make tools)
// through solc's standard-JSON interface and writes, per contract:
//   contracts/build/<Name>.json  abi, bytecode, deployed bytecode, selectors,
//                                compiler version and the exact settings used
//   contracts/build/<Name>.abi   the ABI alone   (input of abigen)
//   contracts/build/<Name>.bin   the bytecode    (input of abigen)
// Test-only contracts in contracts/testdata/ are compiled the same way, in a
// separate compiler run (so they cannot change the bytecode above), into
// contracts/testdata/build/.
// Output is deterministic: sources are named by their repository-relative
// path, the metadata hash is left out of the bytecode ("bytecodeHash":
// "none") and nothing records time or the machine. Any compiler error or
// warning fails the build.
//
// Usage: node scripts/compile-contracts.js   (run by `make contracts`)
'use strict';

const fs = require('fs');
const path = require('path');

const root = path.resolve(__dirname, '..');
const SOLC_VERSION = '0.8.30';
// Each group is one compiler run: its sources and where the artifacts go.
const GROUPS = [
  { dir: 'contracts', contracts: ['XRC729', 'XRC137', 'MetaReader', 'XRC563'] },
  { dir: 'contracts/testdata', contracts: ['TestToken', 'LegacyRule', 'ExecTarget'] },
];

// The settings are part of every artifact; change them here only.
const SETTINGS = {
  evmVersion: 'cancun',
  optimizer: { enabled: true, runs: 200 },
  metadata: { bytecodeHash: 'none' },
  outputSelection: {
    '*': {
      '*': ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object', 'evm.methodIdentifiers'],
    },
  },
};

function fail(msg) {
  process.stderr.write(`compile-contracts: ${msg}\n`);
  process.exit(1);
}

function loadSolc() {
  const dir = path.join(root, '.tools', 'npm', 'node_modules', 'solc');
  if (!fs.existsSync(dir)) {
    fail(`solc-js not found at ${path.relative(root, dir)}: run \`make tools\``);
  }
  const solc = require(dir);
  const version = solc.version();
  if (!version.startsWith(SOLC_VERSION + '+')) {
    fail(`solc-js in .tools is ${version}, want ${SOLC_VERSION}: run \`make tools\``);
  }
  return solc;
}

function main() {
  const solc = loadSolc();
  for (const group of GROUPS) {
    compileGroup(solc, group);
  }
}

function compileGroup(solc, group) {
  const sources = {};
  for (const name of group.contracts) {
    const rel = `${group.dir}/${name}.sol`;
    sources[rel] = { content: fs.readFileSync(path.join(root, rel), 'utf8') };
  }
  const input = { language: 'Solidity', sources, settings: SETTINGS };
  const output = JSON.parse(solc.compile(JSON.stringify(input)));

  const problems = (output.errors || []).filter((e) => e.severity !== 'info');
  for (const e of problems) {
    process.stderr.write((e.formattedMessage || e.message) + '\n');
  }
  if (problems.length > 0) {
    fail(`${problems.length} compiler error(s) or warning(s); fix them (warnings fail the build too)`);
  }

  const outDir = path.join(root, group.dir, 'build');
  fs.mkdirSync(outDir, { recursive: true });
  for (const name of group.contracts) {
    const sourceName = `${group.dir}/${name}.sol`;
    const c = output.contracts && output.contracts[sourceName] && output.contracts[sourceName][name];
    if (!c) {
      fail(`${sourceName} does not define contract ${name}`);
    }
    const artifact = {
      contractName: name,
      sourceName,
      compiler: { name: 'solc-js', version: solc.version() },
      settings: {
        evmVersion: SETTINGS.evmVersion,
        optimizer: SETTINGS.optimizer,
        metadata: SETTINGS.metadata,
      },
      abi: c.abi,
      bytecode: '0x' + c.evm.bytecode.object,
      deployedBytecode: '0x' + c.evm.deployedBytecode.object,
      methodIdentifiers: c.evm.methodIdentifiers,
    };
    write(path.join(outDir, `${name}.json`), JSON.stringify(artifact, null, 2) + '\n');
    write(path.join(outDir, `${name}.abi`), JSON.stringify(c.abi) + '\n');
    write(path.join(outDir, `${name}.bin`), c.evm.bytecode.object + '\n');
  }
}

function write(file, text) {
  fs.writeFileSync(file, text);
  process.stderr.write(`compile-contracts: wrote ${path.relative(root, file)}\n`);
}

main();
