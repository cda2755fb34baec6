package sandbox

// reportFD is the helper's write end of the start report pipe.
const reportFD = 3

// specFD is a memory file holding the helper's Spec as JSON. Not the
// environment: the kernel takes at most 128 KiB in one environment string
// (MAX_ARG_STRLEN), so the program's argv in JSON there would make its
// command line fail to start at a fraction of the size it could have.
const specFD = 4
