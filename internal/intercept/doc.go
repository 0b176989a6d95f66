// Package intercept keeps huge tool and resource results out of an agent's
// context.
//
// It owns the rewriting of one result at a time: inline images, audio,
// binary resource blobs and text that is one big base64 blob are written to
// files under the output directory and replaced by a one-line note naming the
// file; text longer than the limit is written whole to result_<id>.txt and
// cut to its head plus a note saying how to page through the rest with Read.
// It also owns deleting its own old files: those of earlier runs past an
// age (Prune), and, as an Interceptor goes on spilling, the oldest of its
// own results past a count and a size (Options.KeepResults), so that an
// agent server that lives for days holds neither more files nor more
// memory for them.
//
// It must never mutate the caller's result (a changed result is a new value
// and an untouched one is returned as the same pointer), never touch files in
// the output directory that it did not name, and never hold the whole of a
// large text more than once in memory on its behalf.
package intercept
