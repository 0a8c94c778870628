-- Drafts saved before sources existed keep their recipients: each becomes one file source
-- holding them, so making the recipients again from the sources loses nobody.
with drafts as (
  select c.id, c.user_id from campaigns c
   where c.is_draft and exists (select 1 from campaign_recipients r where r.campaign_id = c.id)
),
sources as (
  insert into campaign_sources (campaign_id, user_id, kind, name, rows, added)
  select d.id, d.user_id, 'file', 'Recipients added before',
         (select count(*) from campaign_recipients r where r.campaign_id = d.id),
         (select count(*) from campaign_recipients r where r.campaign_id = d.id)
    from drafts d
  returning id, campaign_id, user_id
),
copied as (
  insert into campaign_source_rows (source_id, position, user_id, email, name, variables)
  select s.id, row_number() over (partition by s.id order by r.id), s.user_id, r.email, r.name, r.variables
    from sources s join campaign_recipients r on r.campaign_id = s.campaign_id
  returning source_id
)
update campaign_recipients r set source_id = s.id
  from sources s where r.campaign_id = s.campaign_id;
