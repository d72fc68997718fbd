# labs/labs.mk: the labs' targets (included by the top Makefile; labs/README.md, tools/lab).
#   make lab LAB=name DEST=dir   lab NAME's student tree, a new git repository in DIR
#   make grade [LAB=name]        grade as the autograder does (tools/lab grade): the lab's files
#                                laid over its handout, built, graded by labs/LAB/grade with
#                                GRADEFLAGS; in a handout LAB is the handout's own (its .lab), in
#                                the instructor's tree the lab's solution is graded
#   make handin                  in a handout: handin-LAB.tar.gz of the last commit, to hand in
#   make gradescope LAB=name     build/gradescope-LAB.zip, the Gradescope autograder
#   make test-labs               every lab's grader in full on its handout and its solution, one
#                                submission through make grade, grade-all and run_autograder,
#                                tampered submissions, the mutations (tools/lab mutants)
#                                (tests/labs/test_labs_full.py; .ci/run runs it)

LAB ?= $(shell cat .lab 2>/dev/null)
LAB_NAMES := $(patsubst labs/%/grade,%,$(wildcard labs/*/grade))

lab:
	@if [ -z "$(LAB)" ] || [ -z "$(DEST)" ]; then \
		echo "make lab: give the lab and a new folder: make lab LAB=name DEST=dir (labs: $(LAB_NAMES))"; \
		exit 2; fi
	tools/lab handout $(LAB) $(DEST)

grade:
	@if [ -z "$(LAB)" ] || [ ! -f "labs/$(LAB)/grade" ]; then \
		echo "make grade: say which lab: make grade LAB=name (labs: $(LAB_NAMES))"; exit 2; fi
	@tools/install-deps
	tools/lab grade $(LAB) $(GRADEFLAGS)

handin:
	tools/lab handin

gradescope:
	@if [ -z "$(LAB)" ]; then echo "make gradescope: say which lab: make gradescope LAB=name"; exit 2; fi
	tools/lab gradescope $(LAB)

test-labs:
	@if [ ! -d tests/labs ]; then echo "make test-labs: the labs' own tests are in the instructor's tree, not in a handout"; exit 2; fi
	tools/install-deps
	$(MAKE) all test-host
	tests/run --no-build --file tests/labs/test_labs_full.py

.PHONY: lab grade handin gradescope test-labs
