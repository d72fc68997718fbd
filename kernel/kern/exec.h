/* exec_init(path): process 1 becomes the program at path (argv = { path }). 0 or errno. */
#ifndef _KERN_EXEC_H_
#define _KERN_EXEC_H_

int exec_init(const char *path);

#endif
