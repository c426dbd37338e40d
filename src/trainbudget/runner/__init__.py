"""How a procedure runs its steps (steps: the step-runner protocol and the inline runner) and
what each step says in the run's log (log). Below prelaunch.py and weekly.py; nothing here
imports Prefect (flows/prefect_steps.py is the Prefect runner)."""
