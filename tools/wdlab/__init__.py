"""wdlab: the labs' machinery behind tools/lab (labs/README.md is the instructors' guide).

Solutions live in the tree, marked as lab regions; handouts are generated from it; graders
(labs/<name>/grade, on tests/lib/gradelib.py) score a tree. The modules:

  markers.py   the marker syntax: reading, checking and cutting out a file's lab regions
  tree.py      the source tree: its tracked files, its labs, every region checked
  handout.py   a lab's handout (tools/lab handout, make lab): every lab's regions stubbed, the
               lab's own folder, FILES, handout-checks.txt, the reference kernel; a git
               repository tagged handout-<lab>, or a new commit on an earlier lab's
  sequence.py  tools/lab next: a student merges the next lab's handout into their repository
  grading.py   one grade, wherever it runs: the lab's FILES laid over a pristine handout, built
               and graded by the handout's grader (make grade, grade-one, grade-all)
  submit.py    make handin (a tarball of the student's last commit and its diff against the
               handout) and unpacking a submission
  batch.py     tools/lab grade-one and grade-all: submissions graded, one VM at a time (-j N), a
               CSV of scores
  mutants.py   tools/lab mutants: each mutation of a solution (labs/<lab>/mutations/) must fail
               the grader's tests it names
  gradescope.py  make gradescope: the autograder zip (setup.sh, run_autograder, the handout)
  cli.py       the command line
"""
