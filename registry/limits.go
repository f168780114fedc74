package registry

// XRC-729 hard caps from XDaLa_Limits.md §4. A document over any of them is
// rejected before a session can start.
const (
	// MaxOSTCBytes is the largest raw OSTC JSON accepted (256 KiB).
	MaxOSTCBytes = 262144
	// MaxSteps is the largest number of steps in "structure".
	MaxSteps = 128
	// MaxStepIDLen is the longest step id (ASCII identifier characters).
	MaxStepIDLen = 64
	// MaxSpawnsPerBranch is the largest number of entries in one branch's "spawns".
	MaxSpawnsPerBranch = 32
	// MaxJoinInputs is the largest number of entries in one join's "from".
	MaxJoinInputs = 32
)

// maxDepth bounds JSON nesting; an OSTC is at most six levels deep, the rest
// is headroom for the unknown fields real documents carry.
const maxDepth = 32
