// Package policy holds the site-configurable ordering rules the scheduler
// applies: node sort keys (node_sort_key) and job ordering (by_queue,
// round_robin, job_sort_formula, job_sort_key, job priority, submission
// order); later the provisioning policy.
//
// Everything here is pure: parsers turn configuration text into values and
// comparators order vnodes and jobs. The scheduler owns all per-cycle state
// and hands in what it knows (for example resources assigned earlier in the
// cycle), so the same rules serve the live cycle, simulations and tests.
package policy
