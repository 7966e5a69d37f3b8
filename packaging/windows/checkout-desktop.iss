; Inno Setup 6 script: installs the PyInstaller bundle with a Start-menu entry.
; Written, not built here (Inno Setup runs on Windows). See packaging/windows/README.md.
;
; From the repository root, on Windows, after building the bundle into packaging\dist\:
;   iscc /DAppVersion=0.1.0 packaging\windows\checkout-desktop.iss
; Output: packaging\dist\checkout-desktop-<version>-windows-x64-setup.exe

#ifndef AppVersion
  #error Pass the version being packaged: iscc /DAppVersion=X.Y.Z packaging\windows\checkout-desktop.iss
#endif

#define AppName "Checkout Desktop"
#define AppExe "checkout-desktop.exe"
; Relative to this script's folder.
#define BundleDir "..\dist\checkout-desktop"
#define IconFile "..\build\icons\checkout-desktop.ico"

#if !FileExists(AddBackslash(SourcePath) + BundleDir + "\" + AppExe)
  #error The bundle is missing: build packaging\dist\checkout-desktop\ with PyInstaller first
#endif

[Setup]
; The AppId identifies the product for upgrades and uninstall; it must never change.
AppId={{26DC9354-F3BB-4F45-BE71-D477BDF2A053}
AppName={#AppName}
AppVersion={#AppVersion}
AppVerName={#AppName} {#AppVersion}
DefaultDirName={autopf}\{#AppName}
DefaultGroupName={#AppName}
DisableProgramGroupPage=yes
; Per-user install by default (no administrator needed on a shop PC); the dialog offers
; "install for all users" to an administrator.
PrivilegesRequired=lowest
PrivilegesRequiredOverridesAllowed=dialog
ArchitecturesAllowed=x64compatible
ArchitecturesInstallIn64BitMode=x64compatible
; Qt 6 supports Windows 10 1809 and later.
MinVersion=10.0.17763
OutputDir=..\dist
OutputBaseFilename=checkout-desktop-{#AppVersion}-windows-x64-setup
SetupIconFile={#IconFile}
UninstallDisplayIcon={app}\{#AppExe}
UninstallDisplayName={#AppName}
Compression=lzma2/max
SolidCompression=yes
WizardStyle=modern
; A running terminal holds its files open; ask to close it before replacing them.
CloseApplications=yes
RestartApplications=no

[Languages]
Name: "brazilianportuguese"; MessagesFile: "compiler:Languages\BrazilianPortuguese.isl"
Name: "english"; MessagesFile: "compiler:Default.isl"

[Tasks]
Name: "desktopicon"; Description: "{cm:CreateDesktopIcon}"; GroupDescription: "{cm:AdditionalIcons}"

[InstallDelete]
; An upgrade replaces the whole bundle: a library left from an older Qt would be loaded.
Type: filesandordirs; Name: "{app}\_internal"

[Files]
Source: "{#BundleDir}\*"; DestDir: "{app}"; Flags: ignoreversion recursesubdirs createallsubdirs

[Icons]
Name: "{autoprograms}\{#AppName}"; Filename: "{app}\{#AppExe}"; WorkingDir: "{app}"; Comment: "Card payment terminal"
Name: "{autodesktop}\{#AppName}"; Filename: "{app}\{#AppExe}"; WorkingDir: "{app}"; Tasks: desktopicon

[Run]
Filename: "{app}\{#AppExe}"; Description: "{cm:LaunchProgram,{#AppName}}"; Flags: nowait postinstall skipifsilent

; Uninstalling removes the program only. Settings, the charge database and logs (under
; %LOCALAPPDATA%\checkout-desktop) and the secrets in Credential Manager stay, so a reinstall
; finds the shop's history; packaging/windows/README.md says how to remove them.
