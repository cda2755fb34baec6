package backend

// fionread asks a pipe or a terminal for its queued bytes: FIONREAD,
// _IOR('f', 127, int) in XNU's sys/filio.h, which x/sys does not name
// for darwin.
const fionread = 0x4004667f
