-- upstream's regenerate-signing-key: agent tokens and download URLs carry the generation of their infra-env's
-- signing key; regenerating bumps it and tokens of older generations are refused.
ALTER TABLE infra_envs ADD COLUMN signing_key_generation INT NOT NULL DEFAULT 0;
