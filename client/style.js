// The drawer's stylesheet: dsh web's own `--dsw-*` tokens (fonts, colours, light/dark), with
// fallbacks for a page without them. Everything is scoped under #dsh-memento-panel or .mm-*.
export const STYLE = `
#dsh-memento-panel{--mm-fg:var(--dsw-alias-label-primary,#0f1115);--mm-fg2:var(--dsw-alias-label-secondary,#5c6370);--mm-fg3:var(--dsw-alias-label-tertiary,#8a8f98);--mm-bg:var(--dsw-alias-bg-layer-2,#fff);--mm-bg2:var(--dsw-alias-bg-module-platform,#f5f6f7);--mm-line:var(--dsw-alias-border-l2,#0000001a);--mm-hover:var(--dsw-alias-interactive-bg-hover,#0000000a);--mm-strong:var(--dsw-alias-button-primary-fill,#0f1115);--mm-on-strong:var(--dsw-alias-label-primary-inverted,#fff);--mm-ok:var(--dsw-alias-state-success-primary,#16a34a);--mm-warn:var(--dsw-alias-state-warn-primary,#f59e0b);--mm-err:var(--dsw-alias-state-error-primary,#dc2626);font-family:var(--dsw-font-family,-apple-system,BlinkMacSystemFont,"Segoe UI","PingFang SC","Hiragino Sans GB","Microsoft YaHei","Helvetica Neue",Helvetica,Arial,sans-serif);font-size:14px;line-height:22px;color:var(--mm-fg)}
#dsh-memento-panel *{box-sizing:border-box}
#dsh-memento-panel button,#dsh-memento-panel input,#dsh-memento-panel select,#dsh-memento-panel textarea{font:inherit;color:inherit}
.mm-open{position:fixed;right:16px;bottom:16px;z-index:9998;height:36px;padding:0 14px;border-radius:18px;border:1px solid var(--mm-line);background:var(--mm-bg);box-shadow:var(--dsw-shadow-lv2,0 2px 8px #0000000f);cursor:pointer}
.mm-open:hover,.mm-btn:hover,.mm-tab:hover{background:var(--mm-hover)}
.mm-drawer{position:fixed;top:0;right:0;bottom:0;z-index:9999;width:min(520px,100vw);display:flex;flex-direction:column;background:var(--mm-bg);border-left:1px solid var(--mm-line);box-shadow:var(--dsw-shadow-lv3,0 12px 32px #00000014);overflow:hidden}
.mm-drawer[hidden],.mm-modal[hidden],#dsh-memento-panel [hidden]{display:none!important}
.mm-head{flex:none;padding:12px 16px 0;border-bottom:1px solid var(--mm-line);background:var(--mm-bg)}
.mm-bar{display:flex;align-items:center;gap:8px;min-width:0}
.mm-title{font-size:16px;font-weight:600;line-height:24px}
.mm-count{color:var(--mm-fg3);font-size:13px;white-space:nowrap}
.mm-grow{flex:1}
.mm-btn{height:28px;padding:0 10px;border-radius:8px;border:1px solid var(--mm-line);background:transparent;cursor:pointer;white-space:nowrap;font-size:13px!important}
.mm-btn.mm-primary{background:var(--mm-strong);color:var(--mm-on-strong)!important;border-color:transparent}
.mm-btn.mm-danger{color:var(--mm-err)!important}
.mm-btn:disabled{opacity:.45;cursor:default}
.mm-x{width:28px;padding:0;font-size:18px!important}
.mm-budgets{display:grid;grid-template-columns:1fr 1fr;gap:6px 16px;margin:10px 0 4px}
.mm-budgets-title{grid-column:1/-1;color:var(--mm-fg3);font-size:12px;line-height:18px;overflow-wrap:anywhere}
.mm-budget{min-width:0;font-size:12px;line-height:18px}
.mm-budget-row{display:flex;flex-wrap:wrap;gap:0 6px;justify-content:space-between}
.mm-budget-row span{white-space:nowrap}
.mm-budget-row span:last-child{color:var(--mm-fg3);font-variant-numeric:tabular-nums}
.mm-meter{height:4px;border-radius:2px;background:var(--mm-bg2);overflow:hidden;margin-top:2px}
.mm-meter i{display:block;height:100%;border-radius:2px;background:var(--mm-ok)}
.mm-meter i.mm-high{background:var(--mm-warn)}.mm-meter i.mm-full{background:var(--mm-err)}
.mm-tabs{display:flex;flex-wrap:wrap;gap:4px;margin-top:8px}
.mm-tab{border:0;background:transparent;padding:6px 10px;border-radius:8px 8px 0 0;cursor:pointer;color:var(--mm-fg2)!important;border-bottom:2px solid transparent}
.mm-tab[aria-selected=true]{color:var(--mm-fg)!important;border-bottom-color:var(--mm-strong);font-weight:600}
.mm-scroll{flex:1;overflow-y:auto;overflow-x:hidden;padding:12px 16px 16px;min-width:0}
.mm-tools{display:flex;flex-wrap:wrap;gap:8px;margin-bottom:8px}
.mm-search{flex:1 1 100%;height:34px;padding:0 12px;border-radius:10px;border:1px solid var(--mm-line);background:var(--mm-bg2);outline:none;min-width:0}
.mm-search:focus,.mm-input:focus{border-color:var(--mm-fg3)}
.mm-select{height:28px;max-width:100%;min-width:0;flex:1 1 0;border-radius:8px;border:1px solid var(--mm-line);background:var(--mm-bg);padding:0 6px;font-size:13px!important;text-overflow:ellipsis}
.mm-banner{border-radius:10px;padding:8px 12px;margin:0 0 10px;background:var(--mm-bg2);border:1px solid var(--mm-err);color:var(--mm-fg);overflow-wrap:anywhere}
.mm-banner b{color:var(--mm-err);font-family:var(--ds-font-family-code,ui-monospace,monospace);font-size:12px;margin-right:6px}
.mm-banner small{display:block;color:var(--mm-fg2)}
.mm-note{color:var(--mm-fg3);font-size:13px;margin:12px 0}
.mm-layer{display:flex;align-items:baseline;gap:8px;margin:18px 0 6px;font-size:13px;font-weight:600;color:var(--mm-fg2);letter-spacing:.02em}
.mm-layer:first-child{margin-top:4px}
.mm-ws{margin:8px 0 4px;font-size:12px;line-height:18px;color:var(--mm-fg3);overflow-wrap:anywhere}
.mm-ws b{color:var(--mm-fg2);font-weight:500}
.mm-entry{display:flex;gap:8px;align-items:flex-start;padding:10px 12px;margin:6px 0;border:1px solid var(--mm-line);border-radius:12px;min-width:0}
.mm-entry.mm-picked{border-color:var(--mm-fg3);background:var(--mm-bg2)}
.mm-main{flex:1;min-width:0}
.mm-text{white-space:pre-wrap;overflow-wrap:anywhere;word-break:normal}
.mm-collapsed{max-height:132px;overflow:hidden;-webkit-mask-image:linear-gradient(#000 60%,transparent);mask-image:linear-gradient(#000 60%,transparent)}
.mm-link{border:0;background:none;padding:0;margin-top:2px;color:var(--mm-fg2)!important;font-size:13px!important;cursor:pointer;text-decoration:underline}
.mm-tags{display:flex;flex-wrap:wrap;gap:4px;margin-top:6px}
.mm-tag{font-size:12px;line-height:18px;padding:0 8px;border-radius:9px;background:var(--mm-bg2);color:var(--mm-fg2);overflow-wrap:anywhere;max-width:100%}
.mm-meta{margin-top:4px;font-size:12px;line-height:18px;color:var(--mm-fg3);overflow-wrap:anywhere}
.mm-foot{display:flex;align-items:flex-end;gap:8px;min-width:0}
.mm-foot .mm-meta{flex:1;min-width:0}
.mm-actions{display:flex;gap:4px;flex:none}
.mm-actions .mm-btn{height:24px;padding:0 8px;font-size:12px!important;border-color:transparent;color:var(--mm-fg2)}
.mm-entry:hover .mm-actions .mm-btn,.mm-actions .mm-btn:focus-visible{border-color:var(--mm-line)}
.mm-check{flex:none;padding-top:3px}
.mm-form{display:flex;flex-direction:column;gap:8px;min-width:0}
.mm-input{width:100%;min-width:0;border-radius:10px;border:1px solid var(--mm-line);background:var(--mm-bg2);padding:6px 10px;outline:none}
textarea.mm-input{min-height:96px;resize:vertical;white-space:pre-wrap}
.mm-row{display:flex;gap:8px;justify-content:flex-end;flex-wrap:wrap}
.mm-more{display:block;margin:12px auto 0}
.mm-picker{position:sticky;bottom:0;display:flex;gap:8px;align-items:center;padding:8px 12px;margin-top:10px;border-radius:12px;background:var(--mm-bg);border:1px solid var(--mm-line);box-shadow:var(--dsw-shadow-lv2,0 2px 8px #0000000f)}
.mm-proposal{padding:10px 12px;margin:6px 0;border:1px solid var(--mm-line);border-radius:12px}
.mm-audit{display:grid;grid-template-columns:auto minmax(0,1fr);gap:2px 10px;font-size:12px;line-height:18px;padding:6px 0;border-bottom:1px solid var(--mm-line)}
.mm-audit time{color:var(--mm-fg3);white-space:nowrap;font-variant-numeric:tabular-nums}
.mm-audit div{overflow-wrap:break-word;word-break:normal;min-width:0}
.mm-audit b{font-weight:600}
.mm-audit q{display:block;color:var(--mm-fg2);quotes:none;white-space:pre-wrap;overflow-wrap:anywhere}
.mm-modal{position:absolute;inset:0;z-index:2;display:flex;align-items:center;justify-content:center;padding:16px;background:var(--dsw-alias-bg-mask-2,#0000001f)}
.mm-dialog{width:100%;max-height:100%;overflow-y:auto;overflow-x:hidden;background:var(--mm-bg);border-radius:16px;padding:20px;box-shadow:var(--dsw-shadow-lv3,0 12px 32px #00000014);border:1px solid var(--mm-line)}
.mm-dialog h3{margin:0 0 8px;font-size:16px;line-height:24px}
.mm-label{margin-top:10px;font-size:12px;font-weight:600;color:var(--mm-fg2)}
.mm-full{margin:4px 0 0;padding:8px 10px;border-radius:10px;background:var(--mm-bg2);white-space:pre-wrap;overflow-wrap:anywhere;font:inherit;max-height:40vh;overflow-y:auto}
.mm-full.mm-gone{text-decoration:line-through;text-decoration-color:var(--mm-err)}
.mm-consent{font-size:12px;line-height:18px;color:var(--mm-fg2);margin:12px 0}
.mm-warning{margin-top:8px;font-size:12px;line-height:18px;color:var(--mm-fg);overflow-wrap:anywhere}
.mm-warning::before{content:"⚠ ";color:var(--mm-warn)}
.mm-similar{margin-top:8px;padding:8px 10px;border-radius:8px;background:var(--mm-bg2);font-size:12px;line-height:18px;overflow-wrap:anywhere}
.mm-similar q{display:block;white-space:pre-wrap;color:var(--mm-fg)}
.mm-seq{color:var(--mm-fg3);font-variant-numeric:tabular-nums}
.mm-audit-acts{justify-content:flex-start;margin-top:4px}
.mm-audit-acts .mm-btn{height:24px;padding:0 8px;font-size:12px!important}
.mm-version{margin-top:12px}
.mm-version:first-of-type{margin-top:4px}
.mm-sessions{display:flex;flex-wrap:wrap;gap:6px;margin-bottom:10px}
.mm-session{display:flex;flex-direction:column;align-items:flex-start;max-width:100%;min-width:0;padding:4px 10px;border-radius:10px;border:1px solid var(--mm-line);background:transparent;cursor:pointer;text-align:left}
.mm-session span{font-size:12px;line-height:18px;overflow-wrap:anywhere;max-width:100%}
.mm-session small{font-size:11px;line-height:16px;color:var(--mm-fg3)}
.mm-session.mm-on{border-color:var(--mm-fg3);background:var(--mm-bg2)}
.mm-compare{display:grid;grid-template-columns:repeat(auto-fit,minmax(200px,1fr));gap:10px;align-items:start}
.mm-side{min-width:0}
.mm-side .mm-label{margin-top:0}
.mm-snap{font-size:12px;line-height:18px;max-height:60vh}
.mm-ln{display:block;white-space:pre-wrap;overflow-wrap:anywhere}
.mm-ln.mm-old{text-decoration:line-through;text-decoration-color:var(--mm-err);color:var(--mm-fg2)}
.mm-ln.mm-new{background:color-mix(in srgb,var(--mm-ok) 18%,transparent)}
.mm-finding{padding:10px 12px;margin:6px 0;border:1px solid var(--mm-line);border-radius:12px}
.mm-finding ul{margin:6px 0;padding-left:18px}
.mm-finding li{white-space:pre-wrap;overflow-wrap:anywhere}
`
