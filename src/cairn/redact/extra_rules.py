"""Token formats gitleaks' default rules miss or only catch next to a provider's name, same row shape.

Each row: (id, RE2 regex, secret group, entropy threshold, lower-case keywords, allowlists), run by
providers.RuleSet exactly like gitleaks_rules.RULES. Only self-identifying formats belong here (a
fixed prefix or structure that ordinary text does not have); anything that needs a nearby name is
assign.py's job. Formats from the providers' documentation and from detect-secrets/trufflehog's
published detectors.
"""

from __future__ import annotations

_END = r"(?:[^A-Za-z0-9_\-]|$)"
_START = r"(?:^|[^A-Za-z0-9_\-])"
_NEEDS_DIGIT = (("secret", (r"^[^0-9]*$",), ()),)  # an allowlist: no digit, not a token

RULES: list[tuple] = [
    ("anthropic-key", _START + r"(sk-ant-[a-z]{2,8}\d{2}-[A-Za-z0-9_\-]{20,})" + _END, 1, 3.0, ("sk-ant-",), ()),
    ("openai-api-key", _START + r"(sk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_\-]{20,}T3BlbkFJ[A-Za-z0-9_\-]{20,}"
     r"|sk-(?:proj-|svcacct-|admin-)[A-Za-z0-9_\-]{40,}|sk-[A-Za-z0-9]{48})" + _END, 1, 3.5, ("sk-",), ()),
    ("stripe-webhook-secret", _START + r"(whsec_[A-Za-z0-9+/]{24,})" + _END, 1, 3.0, ("whsec_",), ()),
    ("google-oauth-token", _START + r"(ya29\.[A-Za-z0-9_\-]{20,}|GOCSPX-[A-Za-z0-9_\-]{20,}|1//0[A-Za-z0-9_\-]{40,})"
     + _END, 1, 3.0, ("ya29.", "gocspx-", "1//0"), ()),
    # hf_ and 34 characters exactly: `hf_requiredCharacteristicTypesForDisplayMetadata` is an Objective-C selector
    ("huggingface-token", _START + r"(hf_[A-Za-z0-9]{34}|api_org_[A-Za-z0-9]{34})" + _END, 1, 3.0, ("hf_", "api_org_"), ()),
    ("mailgun-key", _START + r"(key-[0-9a-f]{32})" + _END, 1, 3.0, ("key-",), ()),
    ("mailchimp-key", _START + r"([0-9a-f]{32}-us\d{1,2})" + _END, 1, 3.0, ("-us",), ()),
    ("square-token", _START + r"(sq0(?:atp|csp|idp)-[A-Za-z0-9_\-]{22,43}|EAAA[A-Za-z0-9_\-]{60})" + _END, 1, 3.0,
     ("sq0", "eaaa"), ()),
    ("groq-key", _START + r"(gsk_[A-Za-z0-9]{48,})" + _END, 1, 3.0, ("gsk_",), ()),
    ("replicate-token", _START + r"(r8_[A-Za-z0-9]{37})" + _END, 1, 3.0, ("r8_",), ()),
    ("tailscale-key", _START + r"(tskey-[a-z]+-[A-Za-z0-9\-]{20,})" + _END, 1, 3.0, ("tskey-",), ()),
    ("supabase-token", _START + r"(sbp_[a-f0-9]{40}|sb_secret_[A-Za-z0-9_\-]{20,})" + _END, 1, 3.0, ("sbp_", "sb_secret_"), ()),
    ("digitalocean-token", _START + r"(do[opr]_v1_[a-f0-9]{64})" + _END, 1, 3.0, ("_v1_",), ()),
    ("github-token", _START + r"(gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{40,})" + _END, 1, 3.0,
     ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"), ()),
    ("gitlab-token", _START + r"(gl(?:pat|dt|ptt|rt|oas|cbt|soat|ft|imt|agent)-[A-Za-z0-9_\-.]{20,})" + _END, 1, 3.0,
     ("gl",), ()),
    ("slack-token", _START + r"(xox[abposre]-[A-Za-z0-9\-]{10,}|xapp-\d-[A-Za-z0-9\-]{10,})" + _END, 1, 3.0,
     ("xox", "xapp-"), ()),
    ("npm-token", _START + r"(npm_[A-Za-z0-9]{36})" + _END, 1, 3.0, ("npm_",), ()),
    ("pypi-token", _START + r"(pypi-AgE[A-Za-z0-9_\-]{50,})" + _END, 1, 3.0, ("pypi-age",), ()),
    ("sendgrid-key", _START + r"(SG\.[A-Za-z0-9_\-]{16,32}\.[A-Za-z0-9_\-]{30,50})" + _END, 1, 3.0, ("sg.",), ()),
    ("jwt", _START + r"(eyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,})" + _END, 1, 3.0, ("eyj",), ()),
    ("telegram-bot-token", _START + r"(?:bot)?(\d{6,12}:AA[A-Za-z0-9_\-]{30,40})" + _END, 1, 3.0, (":aa",), ()),
    ("discord-bot-token", _START + r"([MNO][A-Za-z0-9_\-]{23,27}\.[A-Za-z0-9_\-]{6,7}\.[A-Za-z0-9_\-]{27,40})" + _END,
     1, 4.0, (".",), _NEEDS_DIGIT),
    ("vault-token", _START + r"(hv[sbr]\.[A-Za-z0-9_\-]{24,200})" + _END, 1, 3.0, ("hvs.", "hvb.", "hvr."), ()),
    ("heroku-api-key", _START + r"(HRKU-[A-Za-z0-9_\-]{20,})" + _END, 1, 3.0, ("hrku-",), ()),
    # the secret's own characters (~ and . too) cannot follow it, but a sentence's full stop can: `...Q~...~yk0,` in a
    # Freenet key is longer than one
    ("azure-ad-client-secret", _START + r"([A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.\-]{31,34})(?:[^A-Za-z0-9_~.\-]|\.(?:\s|$)|$)", 1, 3.0,
     ("q~",), ()),
    ("aws-session-token", r"((?:FwoGZXIvYXdz|IQoJb3JpZ2luX2Vj|FQoGZXIvYXdz)[A-Za-z0-9+/]{40,}={0,2})", 1, 3.0,
     ("fwogzxivyxdz", "iqojb3jpz2lux2vj", "fqogzxivyxdz"), ()),
    ("databricks-token", _START + r"(dapi[a-f0-9]{32}(?:-\d)?)" + _END, 1, 3.0, ("dapi",), ()),
    ("shopify-token", _START + r"(shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32})" + _END, 1, 3.0, ("shp",), ()),
    ("age-secret-key", r"(AGE-SECRET-KEY-1[0-9A-Z]{58})", 1, 3.0, ("age-secret-key-1",), ()),
    ("linear-key", _START + r"(lin_(?:api|oauth)_[A-Za-z0-9]{40})" + _END, 1, 3.0, ("lin_",), ()),
    ("postman-key", _START + r"(PMAK-[a-f0-9]{24}-[a-f0-9]{34})" + _END, 1, 3.0, ("pmak-",), ()),
    ("atlassian-token", _START + r"(ATATT3[A-Za-z0-9_\-=]{100,}|ATCTT3[A-Za-z0-9_\-=]{100,})" + _END, 1, 3.0,
     ("atatt3", "atctt3"), ()),
    ("grafana-token", _START + r"(gl(?:sa|c)_[A-Za-z0-9_\-+/=]{32,})" + _END, 1, 3.0, ("glsa_", "glc_"), ()),
    ("twilio-key", _START + r"(SK[0-9a-f]{32})" + _END, 1, 3.0, ("sk",), ()),
    ("stripe-key", _START + r"((?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,})" + _END, 1, 3.0, ("_live_", "_test_"), ()),
    ("aws-access-key-id", _START + r"((?:AKIA|ASIA|ABIA|ACCA|AROA|AIDA|A3T[A-Z0-9])[A-Z0-9]{16})" + _END, 1, 3.0,
     ("akia", "asia", "abia", "acca", "aroa", "aida", "a3t"), ()),
    ("google-api-key", _START + r"(AIza[A-Za-z0-9_\-]{35})" + _END, 1, 3.0, ("aiza",), ()),
    ("firebase-fcm-key", _START + r"(AAAA[A-Za-z0-9_\-]{7}:APA91b[A-Za-z0-9_\-]{100,})" + _END, 1, 3.0, ("apa91b",), ()),
    ("newrelic-key", _START + r"(NRAK-[A-Z0-9]{27}|NRJS-[a-f0-9]{19}|NRII-[A-Za-z0-9_\-]{32})" + _END, 1, 3.0,
     ("nrak-", "nrjs-", "nrii-"), ()),
    ("doppler-token", _START + r"(dp\.(?:pt|st|sa|ct|scim|audit)\.(?:[a-z0-9_\-]{1,32}\.)?[A-Za-z0-9]{40,44})" + _END,
     1, 3.0, ("dp.",), ()),
    ("pulumi-token", _START + r"(pul-[a-f0-9]{40})" + _END, 1, 3.0, ("pul-",), ()),
    ("sentry-token", _START + r"(sntr[ysu]_[A-Za-z0-9+/=_\-]{40,})" + _END, 1, 3.0, ("sntr",), ()),
    ("cloudflare-token", _START + r"(cfat_[A-Za-z0-9_\-]{30,}|v1\.0-[a-f0-9]{24}-[a-f0-9]{146})" + _END, 1, 3.0,
     ("cfat_", "v1.0-"), ()),
    ("mapbox-token", _START + r"(sk\.eyJ[A-Za-z0-9_\-]{20,}\.[A-Za-z0-9_\-]{20,})" + _END, 1, 3.0, ("sk.eyj",), ()),
    ("dynatrace-token", _START + r"(dt0[a-z]\d{2}\.[A-Z0-9]{24}\.[A-Z0-9]{64})" + _END, 1, 3.0, ("dt0",), ()),
    ("figma-token", _START + r"(figd_[A-Za-z0-9_\-]{40,})" + _END, 1, 3.0, ("figd_",), ()),
    ("notion-token", _START + r"(secret_[A-Za-z0-9]{43}|ntn_[A-Za-z0-9]{40,})" + _END, 1, 3.0, ("secret_", "ntn_"), ()),
    ("perplexity-key", _START + r"(pplx-[A-Za-z0-9]{40,})" + _END, 1, 3.0, ("pplx-",), ()),
    ("xai-key", _START + r"(xai-[A-Za-z0-9]{70,})" + _END, 1, 3.0, ("xai-",), ()),
    ("deepseek-or-generic-sk", _START + r"(sk-[a-f0-9]{32})" + _END, 1, 3.0, ("sk-",), ()),
    ("openrouter-key", _START + r"(sk-or-v1-[a-f0-9]{64})" + _END, 1, 3.0, ("sk-or-",), ()),
    ("fireworks-or-together-key", _START + r"(fw_[A-Za-z0-9]{24,}|tgp_v1_[A-Za-z0-9_\-]{40,})" + _END, 1, 3.0,
     ("fw_", "tgp_v1_"), ()),
    # IFTTT's Webhooks service: the key is the only secret in `maker.ifttt.com/trigger/EVENT/with/key/KEY`
    ("ifttt-webhook-key", r"maker\.ifttt\.com/(?:trigger/[^/\s]+/(?:json/)?with/key|use)/([A-Za-z0-9_\-]{16,})", 1, 3.0,
     ("maker.ifttt.com",), ()),
    ("zapier-webhook", r"https://hooks\.zapier\.com/hooks/catch/\d+/([A-Za-z0-9]{5,})", 1, 0.0, ("hooks.zapier.com",), ()),
    ("azure-function-key", r"\.azurewebsites\.net/[^\s?#]*\?(?:[^\s#]*&)?code=([A-Za-z0-9_\-]{20,}={0,2})", 1, 3.0,
     ("azurewebsites.net",), ()),
    ("tencent-secret-id", _START + r"(AKID[A-Za-z0-9]{32})" + _END, 1, 3.0, ("akid",), ()),
    ("hubspot-pat", _START + r"(pat-(?:na|eu|ap)\d-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})" + _END, 1,
     3.0, ("pat-",), ()),
    ("dropbox-token", _START + r"(sl\.[A-Za-z0-9_\-=]{130,})" + _END, 1, 3.5, ("sl.",), ()),
    ("typeform-token", _START + r"(tfp_[A-Za-z0-9_\-.=]{40,})" + _END, 1, 3.0, ("tfp_",), ()),
    ("launchdarkly-key", _START + r"((?:api|sdk|mob)-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})" + _END, 1,
     3.0, ("api-", "sdk-", "mob-"), ()),
    ("circleci-token", _START + r"(CCIPAT_[A-Za-z0-9]{22}_[a-f0-9]{40})" + _END, 1, 3.0, ("ccipat_",), ()),
    # Fly.io's `FlyV1 fm2_...,fm2_...`: gitleaks' rule takes only the last macaroon of the comma-separated list
    ("flyio-token", r"(FlyV1 (?:fm1[ar]|fm2)_[A-Za-z0-9+/]{50,}={0,3}(?:,(?:fm1[ar]|fm2)_[A-Za-z0-9+/]{50,}={0,3})*)", 1,
     3.0, ("flyv1 ",), ()),
    # Jenkins' encrypted secrets in credentials.xml and job configs (`{AQAAABAAAAAQ...}`): readable with the
    # instance's master key, which leaks together with them more often than not
    ("jenkins-secret", r"\{(AQAAAB[A-Za-z0-9+/]{20,}={0,2})\}", 1, 3.0, ("{aqaaab",), ()),
    ("terraform-token", _START + r"([A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_\-=]{60,70})" + _END, 1, 3.0, ("atlasv1",), ()),
]
