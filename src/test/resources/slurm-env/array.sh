#!/bin/bash
env | sort > array.$SLURM_ARRAY_TASK_ID.env
