"""Word lists of the offline extractor: what can never be an entity, and cues for entity types."""

from __future__ import annotations

# Function words and sentence openers that are capitalised only because a sentence starts with them.
ENGLISH = frozenset(
    """
a about above according across actually after afterwards again against ago all almost along already also although
always am among an and another any anyone anything anyway are around as at away back be became because become been
before beforehand behind being below beside besides between beyond both but by can cannot could did do does doing
done down during each either else elsewhere enough especially even eventually ever every everyone everything
everywhere except far few finally first firstly for former formerly from further furthermore had has have having he
hence her here hereafter hers herself him himself his how however i if in indeed instead into is it its itself just
last later lastly least less let like likewise many may maybe me meanwhile might mine more moreover most mostly much
must my myself namely neither never nevertheless next no nobody none nonetheless nor not nothing now nowhere of off
often on once one only onto or other others otherwise our ours ourselves out over overall own perhaps please quite
rather really regardless same second secondly see seem seemed seems several shall she should similarly since so some
somebody someone something sometimes somewhere soon still such than that the their theirs them themselves then
thence there thereafter thereby therefore these they third this those though through throughout thus to today
together tomorrow too toward towards under unless unlike until up upon us very via was we well were what whatever
when whenever where whereas wherever whether which while who whoever whole whom whose why will with within without
would yes yesterday yet you your yours yourself yourselves ok okay oh hello hi dear thanks thank note chapter
section figure table page part step see also etc
monday tuesday wednesday thursday friday saturday sunday january february march april june july august september
october november december spring summer autumn winter morning evening night
two three four five six seven eight nine ten eleven twelve twenty thirty hundred thousand million billion
""".split()
)

# Lowercase words allowed inside a capitalised name ("Bank of England", "Leonardo da Vinci").
CONNECTORS = frozenset({"of", "de", "da", "di", "del", "der", "van", "von", "la", "le", "du", "al", "bin", "y"})

# Abbreviations whose final period does not end a sentence.
ABBREVIATIONS = frozenset(
    {
        "mr",
        "mrs",
        "ms",
        "dr",
        "prof",
        "st",
        "jr",
        "sr",
        "inc",
        "ltd",
        "co",
        "corp",
        "vs",
        "etc",
        "no",
        "mt",
        "ft",
        "gen",
        "col",
        "lt",
        "sgt",
        "capt",
        "gov",
        "sen",
        "rep",
        "u.s",
        "e.g",
        "i.e",
    }
)

PERSON_TITLES = frozenset(
    """mr mrs ms miss dr prof professor sir lady lord president king queen prince princess captain general senator
minister judge detective officer uncle aunt saint pope chancellor governor mayor ceo director master mistress warden
harbourmaster harbormaster grandmother grandfather mother father sister brother elder chief commander admiral colonel
lieutenant sergeant bishop abbot count countess duke duchess baron baroness dame reverend rev""".split()
)
# Acronyms that are never entities: eras, times of day.
ACRONYMS = frozenset({"AC", "BC", "AD", "CE", "BCE", "AM", "PM", "OK", "II", "III", "IV"})
PERSON_VERBS = frozenset("said says told asked replied wrote thinks thought smiled laughed".split())

ORG_WORDS = frozenset(
    """inc corp corporation ltd llc company co university institute bank association agency ministry council group
foundation society college school department committee party organization organisation club museum hospital
laboratory lab labs center centre office commission court army navy press times news union federation academy
church airlines bureau authority service services systems technologies industries network
cooperative co-op guild guilds line lines robotics solutions energy motors pharmaceuticals partners holdings studios media
gazette journal herald post tribune daily magazine review radio television tv""".split()
)
PLACE_LAST = frozenset(
    """city river mountain mountains lake street road avenue island islands county state province valley sea ocean bay
park bridge square kingdom republic desert forest coast station airport port harbor harbour region district village
town peninsula canyon falls hills lane lighthouse tower hall market cafe café restaurant hotel pier wharf
beach quay plaza gardens garden castle palace cathedral temple isle isles key keys quarter sound shoals
reach levee docks dock""".split()
)
EVENT_WORDS = frozenset(
    """project program programme war battle festival conference summit treaty act agreement plan initiative mission
award prize cup championship olympics election revolution expedition storm hurricane typhoon
earthquake flood""".split()
)
PLACE_FIRST = frozenset("mount lake cape port fort gulf isle".split())
PLACE_PREPOSITIONS = frozenset("in near from to across into toward towards".split())

NOUN_SUFFIXES = ("tion", "sion", "ment", "ness", "ity", "ism", "ogy", "ence", "ance", "ship", "ware", "ics")

# The ~100 most common Chinese surnames: jieba tags many ordinary words "nr" (安静, 康复, 顾问);
# a two- or three-character "person" must start with one of these (transliterations are tagged nrt).
SURNAMES = frozenset(
    "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程苏魏吕丁任沈姚卢姜崔钟谭陆汪"
    "范金石廖贾夏韦付傅方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵万钱严覃武戴莫孔向汤欧阳诸葛司马上官"
)
COMPOUND_SURNAMES = ("欧阳", "诸葛", "司马", "上官", "皇甫", "令狐", "慕容", "东方", "尉迟", "长孙")

# Chinese generic nouns that jieba tags as nouns but that say nothing about the topic.
CHINESE = frozenset(
    """时候 东西 方面 情况 时间 地方 人们 事情 部分 过程 结果 方式 原因 问题 内容 样子 办法 一些 这些 那些 其中 之后 之前 以后
以前 今天 明天 昨天 现在 当时 大家 自己 我们 你们 他们 她们 它们 什么 怎么 这样 那样 因为 所以 但是 如果 虽然 然而 而且 并且
或者 已经 可以 没有 一个 一种 这个 那个 东西 地区 方向 作用 影响 目的 条件 意思 关系""".split()
)
