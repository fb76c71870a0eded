#!/bin/bash
env | sort > rq.$SLURM_JOB_ID.${SLURM_RESTART_COUNT:-none}.env
sleep 6
