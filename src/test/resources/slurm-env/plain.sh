#!/bin/bash
env | sort > batch.env
srun bash -c 'env | sort > step.$SLURM_PROCID.env'
