package nodebackend

// sysname is the kernel's name, as uname -s says it under MSYS.
func sysname() string { return "Windows_NT" }
