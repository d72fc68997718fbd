"""wdlab: the labs' machinery behind tools/lab (labs/README.md is the instructors' guide).

Solutions live in the tree, marked as lab regions; handouts are generated from it; graders
(labs/<name>/grade, on tests/lib/gradelib.py) score a tree. The modules:

  markers.py   the marker syntax: reading, checking and cutting out a file's lab regions
  tree.py      the source tree: its tracked files, its labs, every region checked
  handout.py   a lab's student tree (tools/lab handout, make lab), a git repository with one
               commit, tagged `handout`
  submit.py    make handin (a tarball of the student's last commit and its diff against the
               handout) and unpacking a submission for grading, with the grading machinery
               (labs/, tests/, tools/) taken from the instructor's tree
  batch.py     tools/lab grade-all: every submission of a folder graded, one VM at a time
               (-j N), a CSV of scores
  gradescope.py  make gradescope: the autograder zip (setup.sh, run_autograder, the tree)
  cli.py       the command line
"""
