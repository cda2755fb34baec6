// Package exemap trims how much of agentty's own executable stays mapped
// into its address space once it has started.
//
// Linux keeps a large binary's page cache in 2 MiB folios and maps a whole
// folio into a process on the first touch of any of its pages, so starting
// agentty (the runtime's tables, every package's init) leaves nearly all of
// its 47 MB file resident in the process: about 31 MiB of a 37 MiB VmRSS,
// of which the code the server goes on to run is a few MiB. The pages are
// clean, shared page cache; they cost the machine nothing extra, but every
// tool that shows RSS (ps, top, a container's accounting of mapped file
// pages) charges them to agentty.
//
// Trim asks for small pages on the executable's read-only mappings
// (MADV_NOHUGEPAGE) and drops their current mappings (MADV_DONTNEED), so
// only the pages the server touches from then on come back, each by a minor
// fault from the page cache. The file's contents and the page cache are
// untouched; a read-only private mapping holds no state of its own, which is
// why mappings that do (written pages, as a relocated PIE binary's
// read-only-after-relocation segment has) are left alone.
package exemap
