// Command ptxtrace is the front of the ptxtrace command line: the binary
// users run. It runs the two quick commands, fmt and inspect, itself, and
// replaces itself (exec) with the full binary, ptxtrace-full, installed next
// to it, for everything else. See README.md, docs/cli.md and
// docs/startup.md.
//
// Why two binaries. Go runs the package init of everything a binary links,
// and pays start-up work in proportion to its size; the full command set
// links gRPC, OpenTelemetry, protobuf, parquet-go, net/http and a browser
// driver, and starts in ~45 ms of CPU, where fmt on an empty file should
// cost about what gofmt does. The front links package ptx,
// internal/quickcmd and the standard library only: not even the CLI
// library (urfave/cli's init and App set-up cost more than the whole
// target budget under load, see docs/startup.md).
//
// Model. The front runs a command itself only when it understands the
// whole command line exactly: the first argument is fmt or inspect, and
// every later argument is one of that command's boolean flags (written
// -name or --name, without "=value"), "--" (after which everything is a
// file), or a file name (anything not starting with "-", and "-" itself,
// standard input). Flags may stand before or after the files, as in the
// full binary. Any other command line (no command, another command, help,
// --help, --version, an unknown or misspelt flag, a flag with a value) is
// handed to ptxtrace-full unchanged: same arguments (argv[0] included),
// environment and standard streams, through execve(2) on Unix so no
// extra process stays and the exit status is the full binary's. The quick
// commands run the same functions in both binaries (internal/quickcmd), so
// output, messages and exit statuses are the same whichever binary runs
// them; TestFrontAgrees compares the two binaries on every command.
//
// ptxtrace-full is looked up next to the front's own executable (symlinks
// resolved). When it is missing, a command line the front cannot run
// fails with exit status 1 and a message saying how to build it.
package main
