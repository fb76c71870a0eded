-- Containers (pyxis's --container-* and Slurm's --container): the container a job's batch script runs
-- in, as the JSON of its ContainerSpec (NULL: on the node), and the digest the batch host's agent
-- resolved its image to (its IMAGE report; NULL until then, and for a bundle). Steps keep their own
-- (an srun --container-image step), and the digest their image resolved to on their first node.
ALTER TABLE jobs ADD COLUMN container_spec TEXT;
ALTER TABLE jobs ADD COLUMN container_image_digest VARCHAR(256);
ALTER TABLE job_steps ADD COLUMN container_spec TEXT;
ALTER TABLE job_steps ADD COLUMN container_image_digest VARCHAR(256);
