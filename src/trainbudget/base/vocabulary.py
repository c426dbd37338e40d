"""The words two stages share, below both (DESIGN.md, "Layout"): the work classes every
GPU-hour is filed under, the job states sacct prints, the progress events, the artifact roles
and the gates' names. A module that imports nothing, so the landing rules (quality/rules.py),
the Pandera models, the sacct reader, the gates and the decisions table read one list each
without loading one another."""

WORK_CLASSES = ("pilot", "main", "retry", "evaluation", "diagnostic")

# Every job state sacct prints (sacct(1), "JOB STATE CODES").
SLURM_STATES = (
    "BOOT_FAIL", "CANCELLED", "COMPLETED", "COMPLETING", "CONFIGURING", "DEADLINE", "FAILED",
    "NODE_FAIL", "OUT_OF_MEMORY", "PENDING", "PREEMPTED", "RUNNING", "REQUEUED",
    "REQUEUE_FED", "REQUEUE_HOLD", "RESIZING", "RESV_DEL_HOLD", "REVOKED", "SIGNALING",
    "SPECIAL_EXIT", "STAGE_OUT", "STOPPED", "SUSPENDED", "TIMEOUT",
)  # fmt: skip

# The application progress events (DESIGN.md, "Input formats of the accounting side").
PROGRESS_EVENTS = ("start", "step", "checkpoint", "end")

# The roles of an artifact in the manifest.
ARTIFACT_ROLES = ("recovery", "promoted", "final", "evaluation")

# Every gate's name, as GateOutcome.gate and the decisions table spell it (docs/gates.md).
GATES = (
    "admission",
    "stop-rules",
    "pilot-promotion",
    "continuation",
    "retry",
    "evaluation-promotion",
    "release-promotion",
    "retention",
    "decision",
)

# The FLOPs terms a plan's `main.flops.terms` may count on top of 6·N·T, and the model shape
# each one needs (the plan checks it; estimate/flops_basis.py prices it).
FLOPS_TERMS = ("recompute", "attention", "logits")
FLOPS_TERM_NEEDS = {
    "attention": ("n_layers", "d_model", "seq_len"),
    "recompute": (),
    "logits": ("d_model", "vocab"),
}
