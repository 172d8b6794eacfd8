"""Texts in many languages for bench/e5_embed.py (written for this project, no licence issue).

Short sentences as a note's lines read, plus longer passages, in Chinese, Japanese, Korean,
German, English, French, Russian, Spanish, Arabic, with emoji, fullwidth forms, tabs,
runs of spaces and mixed scripts: where a tokenizer port goes wrong, if anywhere.
"""

from __future__ import annotations

SENTENCES = [
    "怎么把笔记导出成 PDF？",
    "在设置里打开“文件与链接”，可以修改新笔记的默认位置。",
    "双向链接让你看到哪些笔记引用了当前笔记。",
    "我想把每日笔记的模板改成包含待办事项和天气。",
    "图谱视图显示笔记之间的关系，可以按标签筛选。",
    "同步服务是端到端加密的，服务器看不到你的内容。",
    "插件市场里有上千个社区插件，安装前请先关闭安全模式。",
    "会议纪要：下周三之前完成第二版原型，由小王负责测试。",
    "ノートをPDFとして書き出すにはどうすればいいですか？",
    "デイリーノートのテンプレートを変更したい。",
    "グラフビューでタグごとに色を付けられます～便利です！",
    "東京の天気は明日、晴れのち曇りでしょう。",
    "새 노트의 기본 위치를 설정에서 바꿀 수 있나요?",
    "회의록: 다음 주 수요일까지 프로토타입을 완성한다.",
    "Wie exportiere ich eine Notiz als PDF-Datei?",
    "Die Donaudampfschifffahrtsgesellschaftskapitänsmütze liegt im Schrank.",
    "Synchronisierungseinstellungen für Anhänge und Vorlagenordner ändern.",
    "Öffne die Einstellungen → Dateien & Links, um den Standardordner zu wählen.",
    "How do I export a note to PDF?",
    "Backlinks show which notes link to the current one.",
    "The meeting moved to Thursday; Alice owns the roadmap milestone.",
    "Comment exporter une note en PDF ? Ça dépend de l'extension.",
    "Как экспортировать заметку в PDF и сохранить ссылки?",
    "¿Cómo cambio la ubicación predeterminada de las notas nuevas?",
    "كيف يمكنني تصدير ملاحظة إلى ملف PDF؟",
    "Great job 🎉🎉 see you tomorrow 👋🏽 — café ☕ at 9:00",
    "emoji only: 😀😃😄😁😆 🧠📚✅❌",
    "ＦＵＬＬＷＩＤＴＨ　ｔｅｘｔ　１２３ and ﬁ ligature, Ⅻ, ㍻",
    "tabs\tand  many    spaces\nand a new line",
    "  leading and trailing spaces  ",
    "混合 mixed 文本 with English terms like API, JSON 和 Markdown。",
    "Obsidian 的 Dataview 插件可以用 SQL 风格的查询列出任务。",
    "数学公式 $E=mc^2$ 和代码块 `print('你好')` 也能搜索。",
    "x",
    "",
]

PASSAGES = [
    "Obsidian 是一个基于本地 Markdown 文件的知识库应用。你的笔记保存在电脑上的一个文件夹里，"
    "这个文件夹称为仓库。你可以用任何文本编辑器打开这些文件，也可以通过同步服务在多台设备之间"
    "保持一致。要导出 PDF，打开命令面板，选择“导出为 PDF”，然后设置页面大小和边距。",
    "デイリーノートはコアプラグインの一つです。毎日のノートを自動的に作成し、テンプレートを"
    "使って見出しやタスクを追加できます。設定で保存先のフォルダと日付の形式を選びます。",
    "Mit der Graphansicht siehst du, wie deine Notizen miteinander verknüpft sind. Filter nach "
    "Tags, Ordnern oder Suchbegriffen blenden Teile aus; Gruppen färben Knoten nach Regeln ein.",
    "Backlinks list every note that links to the one you are reading, with the surrounding "
    "text, so you can see in what context an idea was mentioned before. Unlinked mentions "
    "find notes that name it without a link yet.",
]


def texts() -> list[str]:
    """Every sentence and passage, then each sentence with a passage appended (longer,
    mixed-language inputs)."""
    mixed = [f"{s} {p}" for s in SENTENCES for p in PASSAGES[:2]]
    return SENTENCES + PASSAGES + mixed
