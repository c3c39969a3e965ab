// Package quickcmd holds what ptxtrace's two quick commands, fmt and
// inspect, do once their arguments are known, and the exit-status contract
// every ptxtrace command shares. Both binaries run these functions: the full
// one (cmd/ptxtrace-full) from its urfave/cli commands, the small front one
// (cmd/ptxtrace) directly, so their output is the same by construction.
//
// Model. A command is a Run function taking an options struct (the standard
// Streams plus what the flags said) and returning an error; Report maps the
// error to the exit status and prints it:
//
//	0  success
//	1  failure: "ptxtrace: <msg>" on stderr; a PTX error list
//	   (go/scanner.ErrorList) prints as "file:line:col: message" lines
//	   instead; ErrReported means the lines were already printed
//	2  usage error (*UsageError): "ptxtrace: <msg>"
//
// Invariants. The package imports no CLI library and nothing beyond package
// ptx, internal/atomicfile and the standard library's text, JSON and file
// packages: it is linked into the front binary, whose start-up cost is the
// point of the split (docs/startup.md); TestQuickcmdDeps in cmd/ptxtrace
// keeps it that way. It keeps no state between calls and does no work at
// package init. fmt never writes a partial file: -w replaces a file
// atomically, and only when its contents change.
package quickcmd
