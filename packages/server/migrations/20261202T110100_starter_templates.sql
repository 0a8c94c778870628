-- The three plain-HTML starting templates give way to the builder's starter templates
-- (issue 46 §6), which live in code (contracts/src/email/starters.ts) so each always renders
-- with the renderer of its release. Users' own templates are not touched.
delete from templates where user_id is null;
