// Package layering holds, as a test, the import rules between Strata's
// packages (docs/architecture.md, "Layering"). It has no code of its own.
package layering
