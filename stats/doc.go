// Package stats holds the statistics of the paired performance gate: exact binomial tails,
// order-statistic confidence bounds for the median ratio, the predeclared dependence
// battery, Theil–Sen drift, the seeded paired bootstrap, and the balanced pair schedule.
// It imports only the standard library.
package stats
