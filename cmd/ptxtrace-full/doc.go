// Command ptxtrace-full is the whole ptxtrace command line: it parses CUDA
// PTX, instruments its memory accesses with completion-based timing probes,
// replays kernels on a built-in GPU model and exports the resulting traces.
// See README.md and docs/cli.md. Users run the front, cmd/ptxtrace, which
// runs fmt and inspect itself and execs this binary, installed next to it,
// for everything else (docs/startup.md); run directly, it behaves the same.
// fmt and inspect do their work in internal/quickcmd, shared by both.
//
// This package is thin wiring over the library packages; it holds no logic
// of its own beyond flags, file handling, output and exit codes. Numbers
// come from package analysis (report) and experiments/vr (demo, sweep vr);
// the commands print them and write files. Package main exports nothing.
//
// Structure. main calls run, which builds a fresh *cli.App with newApp and
// runs it; nothing is registered through init functions or package-level
// variables, so a test can run any number of apps side by side. Each
// subcommand lives in one file as
//
//	func newXxxCommand() *cli.Command              // flags, usage, Action
//	type xxxOptions struct{ streams; ... }         // everything the command needs
//	func runXxx(ctx context.Context, o xxxOptions) error
//
// The Action only turns flags and arguments into options (the standard
// streams come from the App: c.App.Reader, c.App.Writer, c.App.ErrWriter,
// see streamsOf), so runXxx can be tested without the flag layer.
//
// Errors and exit codes. runXxx returns an error; run maps it to an exit
// code and prints it:
//
//	0  success
//	1  failure: "ptxtrace: <msg>" on stderr; a PTX error list
//	   (go/scanner.ErrorList) prints as "file:line:col: message" lines instead;
//	   errReported means the lines were already printed
//	2  usage error (usageError, a flag the command does not know, or an
//	   unknown help topic)
//
// Invariant: a command never writes a partial output file; files given with
// -w or -o are replaced atomically through internal/atomicfile.
package main
