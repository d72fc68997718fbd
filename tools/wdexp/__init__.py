"""wdexp: the experiment harness behind tools/experiment (docs/harness.md).

An experiment is a plan: a list of runs, each one boot of one preset (kernel/kern/main.c's table)
at one point of the sweep grid, for one trial. The modules, in the order a run goes through
them:

  plan.py    options -> Plan (plan.json in the output folder): the runs, their ids and file
             names, the guest's command lines, the root image with the probe file.
  trial.py   one run in one VM: the set-up, the raw ceiling dd and the file dd, each beside
             the in-guest sampler (and the probe); the second serial port's stream split into
             samples-*.csv, syncio-*.csv and probe-*.csv; runs/<id>/run.json with the numbers.
  trust.py   whether a run measured the disks: the host monitor (CPU and load per phase), the
             disk models' late replies per phase, the guest's idle share; which runs are suspect.
  batch.py   running the runs: one VM at a time (with a progress line), -j N at once, or a
             Slurm job array (--slurm; each array task runs one run).
  report.py  gathering a folder's runs: summary.txt (the table), results.csv, groups.csv (the
             sweep grid), results.json, manifest.txt.
  plots.py   gnuplot scripts and PNGs from the CSVs (--replot redraws them).
  cli.py     the command line.

Everything a run writes goes into the output folder, under names unique to the run, so runs
may execute anywhere (another process, another node) and be gathered afterwards.
"""
