// Package otherrows runs the verdict check of e2e/consistency on the shipped rows outside its
// semantic half, in a package of its own so that each half gets go test's per-package time. It
// has tests only.
package otherrows
