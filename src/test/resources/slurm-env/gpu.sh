#!/bin/bash
env | sort > gpu-batch.env
srun bash -c 'env | sort > gpu-step.$SLURM_PROCID.env'
