-- An upload is stored chunk by chunk as it arrives, each chunk in its own short statement,
-- so a slow client never holds a database connection (R25). Until the last byte is in and
-- the file has been checked, its list_imports row is 'uploading': no page shows it and no
-- job reads it; one short transaction then makes it 'queued' with its job. Rows left
-- 'uploading' by a process that died mid-upload are deleted by lists.import-cleanup.
alter table list_imports drop constraint list_imports_status_check;
alter table list_imports add constraint list_imports_status_check
  check (status in ('uploading', 'queued', 'running', 'finished', 'failed'));
create index list_imports_uploading_idx on list_imports (updated_at) where status = 'uploading';
