-- 004: profiler trace summaries, one row per rank and one per (rank, ProfilerStep).
-- Times are integer nanoseconds (exact; the CLI reports µs). hta_compatible says whether the
-- row used HTA's selection (last step dropped) and whole-µs rounding.
CREATE TABLE trace_ranks (
    rank                  INTEGER NOT NULL,
    rank_from             VARCHAR NOT NULL,     -- distributedInfo, file name, default
    hta_compatible        BOOLEAN NOT NULL,
    device_name           VARCHAR,
    gpu_busy_ns           BIGINT NOT NULL,
    gpu_idle_ns           BIGINT NOT NULL,
    computation_ns        BIGINT NOT NULL,
    communication_ns      BIGINT NOT NULL,
    memory_ns             BIGINT NOT NULL,
    other_ns              BIGINT NOT NULL,
    comm_comp_overlap_pct DOUBLE,
    memory_peak_bytes     BIGINT,
    dataloader_ns         BIGINT NOT NULL,
    flops                 HUGEINT NOT NULL,
    wall_ns               BIGINT NOT NULL,
    event_count           BIGINT NOT NULL,
    json_bytes            BIGINT NOT NULL,
    source_id             BIGINT NOT NULL,
    source_path           VARCHAR NOT NULL,
    source_line           BIGINT,
    source_sha256         VARCHAR NOT NULL,
    landed_at             TIMESTAMPTZ NOT NULL
);

CREATE TABLE trace_steps (
    rank                  INTEGER NOT NULL,
    step                  BIGINT NOT NULL,
    hta_compatible        BOOLEAN NOT NULL,
    duration_ns           BIGINT NOT NULL,
    gpu_busy_ns           BIGINT NOT NULL,
    computation_ns        BIGINT NOT NULL,
    communication_ns      BIGINT NOT NULL,
    memory_ns             BIGINT NOT NULL,
    other_ns              BIGINT NOT NULL,
    comm_comp_overlap_pct DOUBLE,
    dataloader_ns         BIGINT NOT NULL,
    flops                 HUGEINT NOT NULL,
    source_id             BIGINT NOT NULL,
    source_path           VARCHAR NOT NULL,
    source_line           BIGINT,
    source_sha256         VARCHAR NOT NULL,
    landed_at             TIMESTAMPTZ NOT NULL
);
