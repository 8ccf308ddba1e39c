//! Words that mean the same thing in memory entries, across English, Chinese and Japanese
//! (`brief`, `concise`, `简洁`, `簡潔`; `PR`, `pull request`, `プルリク`), so a fact reworded, or
//! written in another of the three languages, still shares its tokens. Each group is one token.
//!
//! Some groups are **siblings** of others (`frontend` and `backend`, `staging` and
//! `production`, `unit` and `e2e`, `logs` and `metrics`): two entries that differ by swapping
//! siblings say two facts of the same kind, both true at once, not one fact and its update.
#![forbid(unsafe_code)]

use std::collections::HashMap;
use std::sync::OnceLock;

/// A group of words with one meaning.
pub(super) struct Group {
  /// The token the group's words share (never a word of a text: it starts with `§`).
  pub(super) key: &'static str,
  pub(super) weight: f32,
  /// Groups of one sibling class (not 0) are different things of one kind.
  pub(super) sibling: u8,
  /// ASCII words (lowercase) and CJK words, space-separated.
  words: &'static str,
}

/// Sibling classes.
const TIER: u8 = 1;
const ENV: u8 = 2;
const TEST_KIND: u8 = 3;
const SIGNAL: u8 = 4;
const STORE: u8 = 5;
const PLATFORM: u8 = 6;
const SIDE: u8 = 7;
const COMMAND: u8 = 8;
const IO: u8 = 9;
const VISIBILITY: u8 = 10;

macro_rules! group {
  ($key:literal, $weight:literal, $sibling:expr, $words:literal) => {
    Group {
      key: $key,
      weight: $weight,
      sibling: $sibling,
      words: $words,
    }
  };
}

const GROUPS: &[Group] = &[
  group!(
    "§short",
    1.0,
    0,
    "short shorter brief briefly terse concise concisely succinct 简洁 简短 简明 精简 \
     简要 簡潔 手短 短く 短い 短め"
  ),
  group!(
    "§answer",
    1.0,
    0,
    "answer answers reply replies response responses respond 回答 回复 答复 回应 返答 \
     返事 応答 答え"
  ),
  group!("§pr", 1.0, 0, "pr prs mr mrs プルリク プルリクエスト"),
  group!(
    "§db",
    1.0,
    STORE,
    "db dbs database databases 数据库 データベース"
  ),
  group!("§cache", 1.0, STORE, "cache caches caching 缓存 キャッシュ"),
  group!("§queue", 1.0, STORE, "queue queues 队列 キュー"),
  group!(
    "§repo",
    1.0,
    0,
    "repo repos repository repositories 仓库 代码库 リポジトリ"
  ),
  group!(
    "§config",
    1.0,
    0,
    "config configs configuration conf 配置 設定"
  ),
  group!("§docs", 1.0, 0, "doc docs documentation 文档 ドキュメント"),
  group!("§ts", 1.0, 0, "ts typescript"),
  group!("§js", 1.0, 0, "js javascript"),
  group!("§k8s", 1.0, 0, "k8s kubernetes kube"),
  group!(
    "§deps",
    1.0,
    0,
    "dep deps dependency dependencies 依赖 依赖包 依存 依存関係"
  ),
  group!(
    "§dir",
    0.8,
    0,
    "dir dirs directory directories folder folders 目录 文件夹 ディレクトリ フォルダ"
  ),
  group!("§emoji", 1.0, 0, "emoji emojis 表情符号 表情 絵文字"),
  group!(
    "§manual",
    1.0,
    0,
    "manual manually handwritten 手写 手工 手动 手書き 手作業 手動"
  ),
  group!("§msg", 0.8, 0, "msg msgs message messages メッセージ"),
  group!("§env", 0.5, 0, "environment environments 环境 環境"),
  group!(
    "§ship",
    1.0,
    0,
    "deploy deploys deployed deploying deployment deployments ship ships shipped \
     release releases released 部署 发布 发版 上线 デプロイ リリース"
  ),
  group!(
    "§review",
    1.0,
    0,
    "review reviews reviewed reviewing reviewer reviewers 审查 评审 审核 代码审查 \
     レビュー"
  ),
  group!(
    "§approve",
    1.0,
    0,
    "approve approves approved approval approvals 审批 批准 承認"
  ),
  group!(
    "§test",
    0.8,
    COMMAND,
    "test tests testing tested 测试 テスト"
  ),
  group!("§diff", 1.0, 0, "diff diffs 差分"),
  group!(
    "§summary",
    1.0,
    0,
    "summary summaries summarize summarise 总结 摘要 概括 要約 まとめ"
  ),
  group!(
    "§confirm",
    1.0,
    0,
    "confirm confirms confirmation 确认 確認"
  ),
  group!(
    "§secret",
    1.0,
    0,
    "secret secrets credential credentials 密钥 秘钥 秘密 シークレット 秘密情報"
  ),
  group!(
    "§commit",
    1.0,
    0,
    "commit commits committed committing 提交 コミット"
  ),
  group!("§log", 1.0, SIGNAL, "log logs logging 日志 ログ"),
  group!("§metric", 1.0, SIGNAL, "metric metrics 指标 メトリクス"),
  group!("§trace", 1.0, SIGNAL, "trace traces tracing 链路 トレース"),
  group!("§error", 1.0, 0, "error errors 错误 报错 エラー"),
  group!("§code", 0.5, 0, "code 代码 コード"),
  group!("§file", 0.5, 0, "file files 文件 ファイル"),
  group!(
    "§change",
    0.5,
    0,
    "change changes changed edit edits edited editing modify modifies modified 修改 改动 \
     变更 変更 编辑 編集"
  ),
  group!("§branch", 1.0, 0, "branch branches 分支 ブランチ"),
  group!("§port", 1.0, 0, "port ports 端口 ポート"),
  group!(
    "§server",
    0.8,
    SIDE,
    "server servers 服务器 服务端 サーバー サーバ"
  ),
  group!("§client", 0.8, SIDE, "client clients 客户端 クライアント"),
  group!(
    "§migration",
    1.0,
    0,
    "migration migrations migrate 迁移 マイグレーション"
  ),
  group!(
    "§component",
    1.0,
    0,
    "component components 组件 コンポーネント"
  ),
  group!(
    "§function",
    1.0,
    0,
    "function functions functional 函数 関数"
  ),
  group!("§strict", 1.0, 0, "strict 严格 厳格"),
  group!("§theme", 1.0, 0, "theme themes 主题 テーマ"),
  group!("§dark", 1.0, 0, "dark 深色 暗色 ダーク"),
  group!("§light", 1.0, 0, "light 浅色 亮色 ライト"),
  group!("§english", 1.0, 0, "english 英文 英语 英語"),
  group!("§chinese", 1.0, 0, "chinese 中文 汉语 中国語"),
  group!("§japanese", 1.0, 0, "japanese 日语 日文 日本語"),
  group!(
    "§example",
    1.0,
    0,
    "example examples sample samples 示例 例子 样例 サンプル"
  ),
  group!(
    "§upload",
    1.0,
    IO,
    "upload uploads uploaded 上传 アップロード"
  ),
  group!(
    "§download",
    1.0,
    IO,
    "download downloads downloaded 下载 ダウンロード"
  ),
  group!("§limit", 0.8, 0, "limit limits 上限 限制 制限"),
  group!("§coverage", 1.0, 0, "coverage 覆盖率 カバレッジ"),
  group!(
    "§delete",
    1.0,
    0,
    "delete deletes deleted deleting remove removes removed removing 删除 删掉 移除 削除 \
     消す 消し"
  ),
  group!(
    "§network",
    1.0,
    0,
    "network networks networking 网络 ネットワーク 通信"
  ),
  group!(
    "§explain",
    1.0,
    0,
    "explain explains explained explanation explanations describe description 解释 说明 \
     説明 解説"
  ),
  group!("§command", 1.0, 0, "command commands cmd 命令 コマンド"),
  group!(
    "§plan",
    1.0,
    0,
    "plan plans approach 方案 计划 思路 計画 方針"
  ),
  group!(
    "§generate",
    1.0,
    0,
    "generate generates generated generating autogenerate autogenerated 生成 自动生成 \
     自動生成"
  ),
  group!("§language", 1.0, 0, "language languages 语言 言語"),
  group!("§big", 1.0, 0, "big large major huge 大规模 大型 大規模"),
  group!(
    "§frontend",
    1.0,
    TIER,
    "frontend 前端 フロントエンド フロント"
  ),
  group!("§backend", 1.0, TIER, "backend 后端 バックエンド"),
  group!("§staging", 1.0, ENV, "staging 预发 预发布 ステージング"),
  group!(
    "§testenv",
    1.0,
    ENV,
    "qa uat sandbox 测试环境 测试服 検証環境 検証 テスト環境"
  ),
  group!("§prod", 1.0, ENV, "prod production 生产 线上 本番"),
  group!("§dev", 0.8, ENV, "dev development 开发 開発"),
  group!("§unit", 1.0, TEST_KIND, "unit 单元 単体"),
  group!("§e2e", 1.0, TEST_KIND, "e2e 端到端"),
  group!("§integration", 1.0, TEST_KIND, "integration 集成 結合"),
  group!("§ios", 1.0, PLATFORM, "ios"),
  group!("§android", 1.0, PLATFORM, "android"),
  group!(
    "§build",
    0.8,
    COMMAND,
    "build builds building 构建 打包 ビルド"
  ),
  group!("§lint", 1.0, COMMAND, "lint linter linting"),
  group!(
    "§format",
    1.0,
    COMMAND,
    "format formatter formatting 格式化 フォーマット"
  ),
  group!("§public", 1.0, VISIBILITY, "public 公开 公共 公開"),
  group!("§private", 1.0, VISIBILITY, "private 私有 非公開"),
  group!(
    "§indent",
    1.0,
    0,
    "indent indents indentation indented 缩进 インデント"
  ),
  group!("§space", 1.0, 0, "space spaces 空格 スペース"),
  group!("§tab", 1.0, 0, "tab tabs タブ"),
  group!("§timezone", 1.0, 0, "timezone timezones 时区 タイムゾーン"),
  group!("§password", 1.0, 0, "password passwords 密码 パスワード"),
  group!("§image", 1.0, 0, "image images 图片 画像"),
  group!("§week", 0.8, 0, "week weeks weekly 週 週間"),
  group!("§friday", 1.0, 0, "friday fridays 周五 星期五 金曜 金曜日"),
];

/// Two-word English phrases that are one word of a group, and hyphenated spellings: folded
/// into that word before anything else reads the text.
pub(super) const PHRASES: &[(&str, &str)] = &[
  ("pull requests", "prs"),
  ("pull request", "pr"),
  ("merge requests", "mrs"),
  ("merge request", "mr"),
  ("by hand", "manually"),
  ("time zone", "timezone"),
  ("end-to-end", "e2e"),
  ("end to end", "e2e"),
  ("front-end", "frontend"),
  ("front end", "frontend"),
  ("back-end", "backend"),
  ("back end", "backend"),
  ("code review", "review"),
];

struct Index {
  ascii: HashMap<&'static str, &'static Group>,
  /// CJK words by their first character, longest first.
  cjk: HashMap<char, Vec<(&'static str, &'static Group)>>,
}

fn index() -> &'static Index {
  static INDEX: OnceLock<Index> = OnceLock::new();
  INDEX.get_or_init(|| {
    let mut ascii = HashMap::new();
    let mut cjk: HashMap<char, Vec<(&'static str, &'static Group)>> = HashMap::new();
    for group in GROUPS {
      for word in group.words.split_whitespace() {
        match word.chars().next() {
          Some(first) if !first.is_ascii() => cjk.entry(first).or_default().push((word, group)),
          Some(_) => {
            ascii.insert(word, group);
          }
          None => {}
        }
      }
    }
    for words in cjk.values_mut() {
      words.sort_by_key(|(w, _)| std::cmp::Reverse(w.len()));
    }
    Index { ascii, cjk }
  })
}

/// The group of an ASCII word (lowercase).
pub(super) fn of_word(word: &str) -> Option<&'static Group> {
  index().ascii.get(word).copied()
}

/// The longest CJK group word at the start of `run`, and its length in characters.
pub(super) fn cjk_at(run: &str) -> Option<(&'static Group, usize)> {
  let first = run.chars().next()?;
  let words = index().cjk.get(&first)?;
  let (word, group) = words.iter().find(|(w, _)| run.starts_with(w))?;
  Some((group, word.chars().count()))
}

#[cfg(test)]
mod tests {
  use super::*;

  #[test]
  fn each_word_is_in_one_group() {
    let mut seen = std::collections::HashSet::new();
    for group in GROUPS {
      assert!(group.key.starts_with('§'));
      for word in group.words.split_whitespace() {
        assert!(seen.insert(word), "{word} is in two groups");
        assert!(
          !word.is_ascii() || word == word.to_ascii_lowercase(),
          "{word}"
        );
      }
    }
  }

  #[test]
  fn words_of_three_languages_meet() {
    let key = |w: &str| of_word(w).map(|g| g.key);
    assert_eq!(key("concise"), Some("§short"));
    assert_eq!(
      cjk_at("简洁的回答").map(|(g, n)| (g.key, n)),
      Some(("§short", 2))
    );
    assert_eq!(
      cjk_at("簡潔に").map(|(g, n)| (g.key, n)),
      Some(("§short", 2))
    );
    assert_eq!(
      cjk_at("依存関係を").map(|(g, n)| (g.key, n)),
      Some(("§deps", 4))
    );
    assert_eq!(
      of_word("backend").map(|g| g.sibling),
      of_word("frontend").map(|g| g.sibling)
    );
  }
}
