# .gdbinit: `make qemu-gdb` in one terminal, `gdb` in this directory in another.
# gdb loads a .gdbinit from the current directory only if allowed; once:
#   echo "add-auto-load-safe-path $(pwd)/.gdbinit" >> ~/.gdbinit
set architecture i386
file build/kernel.elf
target remote localhost:1234
