// Package policy holds the site-configurable ordering rules the scheduler
// applies: node sort keys (node_sort_key), job ordering (by_queue, job
// priority, submission order) and, later, job_sort_key, job_sort_formula and
// the provisioning policy.
//
// Everything here is pure: parsers turn configuration text into values and
// comparators order vnodes and jobs. The scheduler owns all per-cycle state
// and hands in what it knows (for example resources assigned earlier in the
// cycle), so the same rules serve the live cycle, simulations and tests.
package policy
