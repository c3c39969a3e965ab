// Package atomicfile replaces files so that readers see either the old
// contents or the new, never a mixture, and never a truncated file.
//
// Model: WriteFile streams the new contents into a temporary file created in
// the destination's own directory (so the final step is a rename within one
// file system), sets its permission bits, flushes it to stable storage with
// fsync, closes it and renames it over the destination. The rename is the
// commit point. After it the directory is synced (best effort) so the new
// name survives a crash.
//
// Create, Write (and WriteAt, to patch what was written) and Commit do the
// same in steps, for files written together: Commit(ps...) completes every
// Pending (chmod, fsync and close, the fsyncs side by side on goroutines of
// their own), and only then renames them in order; if a rename fails, the
// destinations renamed before it get their old contents back from hard
// links made just before (removed afterwards). Abort drops a Pending.
// WriteFile is Create, the callback and Commit.
//
// Invariants:
//   - If WriteFile returns an error, the destination is unchanged and the
//     temporary file has been removed (also when the write callback panics;
//     the panic is re-raised after the clean-up).
//   - If WriteFile returns nil, the destination holds exactly the bytes the
//     callback wrote, with permission bits perm (applied with chmod, so the
//     process umask does not narrow them).
//   - When the destination is a symbolic link, the file it resolves to is
//     replaced and the link is kept.
//   - If Commit returns an error, every destination holds its old contents
//     (where hard links can be made) and the temporary files are removed.
//
// The package holds no state; concurrent WriteFile calls on different paths
// are independent. Concurrent calls on the same path each commit whole
// contents; the last rename wins.
package atomicfile
