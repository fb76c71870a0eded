-- --gres=shard:N (null: none): GPU shards the job asks for on its one node.
ALTER TABLE jobs ADD COLUMN shards INTEGER;
