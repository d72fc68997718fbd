/*
 * test.h: the test(1) / [ evaluator, shared by /bin/test (user/bin/test.c) and sh's builtin.
 *   test_main(argc, argv): argv[0] is "test" or "[" (then the last argument must be "]");
 *   returns 0 (true), 1 (false) or 2 (error, message printed on stderr). Never exits.
 */
#ifndef TEST_H
#define TEST_H

int test_main(int argc, char **argv);

#endif
