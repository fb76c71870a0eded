-- Usage for fair share (like slurmdbd's association usage): billing-seconds per user association,
-- decayed with gantry.fairshare.decay-half-life for the fair-share factor, and raw (never decayed)
-- for reports. fairshare_state remembers when usage was last accrued.
CREATE TABLE association_usage (
    account        VARCHAR(64)      NOT NULL,
    user_name      VARCHAR(64)      NOT NULL,
    usage_decayed  DOUBLE PRECISION NOT NULL,
    usage_raw      DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (account, user_name)
);

CREATE TABLE fairshare_state (
    id         INTEGER                  NOT NULL PRIMARY KEY,
    last_tick  TIMESTAMP WITH TIME ZONE NOT NULL
);

-- Usage counts from the moment fair share exists.
INSERT INTO fairshare_state (id, last_tick) VALUES (1, CURRENT_TIMESTAMP);
