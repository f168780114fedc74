package main

import (
	"github.com/xgr-sidecar/xgr/authority"
	"github.com/xgr-sidecar/xgr/rulesource"
)

// scriptedRules resolves rule references as a runtime that reads 0x
// addresses from chain and plays every other step from scripted outcomes:
// the tests' orchestrations name their rules by alias and run no rule.
var scriptedRules = authority.ScriptedSteps(&rulesource.Loader{})
