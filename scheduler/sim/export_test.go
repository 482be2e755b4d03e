package sim

// The hand-made traces of the package's tests, for the external test that
// compares the books (fsm_test.go).
var (
	HandSWF     = handSWF
	BackfillSWF = backfillSWF
)

// backfillSWF is TestBackfillHelps's trace.
const backfillSWF = `; MaxNodes: 4
1  0 -1 100 3 -1 -1 3 100 -1 1 1 1 1 1 1 -1 -1
2  1 -1 100 4 -1 -1 4 100 -1 1 1 1 1 1 1 -1 -1
3  2 -1  50 1 -1 -1 1  50 -1 1 1 1 1 1 1 -1 -1
`
