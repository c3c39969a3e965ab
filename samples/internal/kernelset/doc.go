// Package kernelset lists an embedded group of kernel directories laid out
// as samples/heldout and samples/modern are: one directory per kernel,
// named after it, holding <name>.cu (absent for hand-written PTX), one
// <name>.<variant>.ptx per build and launch.yaml.
package kernelset
